// Durations as runbooks write them (`500ms`, `30s`, `5m`, `1h30m`, `2d`) and as milliseconds.
// Pure: used by the loader and by the interpreter inside Temporal's workflow sandbox.

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** One or more `<number><unit>` parts, largest first by convention (not enforced). */
export const DURATION_SOURCE = '(?:[0-9]+(?:\\.[0-9]+)?(?:ms|s|m|h|d))+';
export const DURATION_PATTERN = new RegExp(`^${DURATION_SOURCE}$`);
export const DURATION_EXAMPLES = '30s, 5m, 1h30m, 500ms or 2d';

export class DurationError extends Error {
  readonly code = 'DURATION_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'DurationError';
  }
}

export function isDuration(text: string): boolean {
  return DURATION_PATTERN.test(text);
}

/** Parses `1h30m` into milliseconds; throws DurationError for anything else. */
export function parseDuration(text: string): number {
  if (!isDuration(text)) {
    throw new DurationError(`\`${text}\` is not a duration; write e.g. ${DURATION_EXAMPLES}`);
  }
  let total = 0;
  for (const match of text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)/g)) {
    total += Number(match[1]) * UNIT_MS[match[2] as Unit];
  }
  return Math.round(total);
}

/** Formats milliseconds the way runbooks write them, e.g. 5_400_000 → `1h30m`. */
export function formatDuration(ms: number): string {
  if (ms <= 0) return '0s';
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit];
    const count = Math.floor(rest / size);
    if (count > 0) {
      parts.push(`${count}${unit}`);
      rest -= count * size;
    }
  }
  return parts.join('');
}
