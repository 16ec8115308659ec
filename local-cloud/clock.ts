// Time source of the local cloud. Every lifecycle is computed from timestamps against this clock,
// so tests can swap in a manual clock and step through transitions without sleeping.

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for deterministic tests. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: number = Date.parse('2025-01-01T00:00:00.000Z')) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('a clock only moves forward');
    this.current += ms;
  }
}
