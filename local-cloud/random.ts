// A small seeded pseudo-random generator (a 32-bit xorshift-multiply mix), so that IDs and fault
// decisions repeat exactly under the same seed. Not for secrets: passwords and keys use node:crypto.

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';

export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The internal state, so a persisted local cloud continues the same sequence after a restart. */
  getState(): number {
    return this.state;
  }

  setState(state: number): void {
    this.state = state >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  alphanumeric(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += ALPHANUMERIC.charAt(this.int(0, ALPHANUMERIC.length - 1));
    return out;
  }

  digits(length: number): string {
    let out = String(this.int(1, 9));
    for (let i = 1; i < length; i++) out += String(this.int(0, 9));
    return out;
  }
}

/** Derives an independent stream from a seed, so adding an ID draw does not shift fault decisions. */
export function deriveSeed(seed: number, stream: string): number {
  let hash = seed >>> 0;
  for (const char of stream) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}

/** A stable 32-bit hash of a string, for deterministic per-resource content such as log lines. */
export function hashString(value: string): number {
  let hash = 0x811c9dc5;
  for (const char of value) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}
