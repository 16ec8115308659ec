// Identifiers in the real API's formats, drawn from the seeded generator (deterministic under
// --seed), and secrets drawn from node:crypto (never predictable, never seeded).
import { randomBytes } from 'node:crypto';
import type { SeededRandom } from './random';

export class IdFactory {
  constructor(
    private readonly random: SeededRandom,
    private readonly isUsed: (id: string) => boolean,
  ) {}

  /** Projects, services and replica sets: 10 lowercase alphanumerics, e.g. `d1k5vk7hf2`. */
  shortId(): string {
    return this.unique(() => this.random.alphanumeric(10));
  }

  /** VPCs and peerings: decimal strings. */
  numericId(): string {
    return this.unique(() => this.random.digits(8));
  }

  /** Lowercase hex characters, for provider-assigned identifiers. */
  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += this.random.int(0, 15).toString(16);
    return out;
  }

  /** A port in the range the real endpoints use. */
  port(): number {
    return this.random.int(30000, 39999);
  }

  /** A float in [min, max), for usage figures. */
  share(min: number, max: number): number {
    return min + this.random.next() * (max - min);
  }

  /** Microseconds after the millisecond, for `created` stamps with six fractional digits. */
  microseconds(): string {
    return String(this.random.int(0, 999)).padStart(3, '0');
  }

  private unique(make: () => string): string {
    for (;;) {
      const id = make();
      if (!this.isUsed(id)) return id;
    }
  }
}

export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

export function generateAccessKey(): string {
  return `sim_${randomBytes(12).toString('hex')}`;
}

export function generateSecretKey(): string {
  return randomBytes(24).toString('base64url');
}

/** `2025-01-01T00:00:00.123456Z`: an RFC 3339 stamp with fractional seconds. */
export function timestamp(ms: number, microseconds = '000'): string {
  return new Date(ms).toISOString().replace('Z', `${microseconds}Z`);
}
