// The passwords services have, kept only as keyed digests in memory (never persisted, never in an
// answer), so an in-process caller — a rehearsal checking a password restore — can ask whether a
// service's password is a given value without anyone reading it back.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export class PasswordBook {
  private readonly key = randomBytes(32);
  private readonly digests = new Map<string, Buffer>();

  private digest(password: string): Buffer {
    return createHmac('sha256', this.key).update(password, 'utf8').digest();
  }

  set(serviceId: string, password: string): void {
    this.digests.set(serviceId, this.digest(password));
  }

  /** Whether the service's password is `candidate`; undefined when its password is not known here. */
  matches(serviceId: string, candidate: string): boolean | undefined {
    const kept = this.digests.get(serviceId);
    return kept === undefined ? undefined : timingSafeEqual(kept, this.digest(candidate));
  }
}
