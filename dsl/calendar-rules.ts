// One RRULE line of a calendar (RFC 5545, as `rrule` reads it), checked strictly and expanded in
// floating wall-clock time. The `rrule` library reads rules leniently (BYHOUR=25 wraps into the
// next day) and, with a TZID, gives times in the process's own zone; so values are range-checked
// here, no TZID is given to it, and calendars.ts converts each wall-clock occurrence itself.
//
// Bounded work: `rrule` iterates from its DTSTART, so the start is moved to just before the search
// (whole periods of the rule when the calendar fixes a `start`, the local midnight otherwise), and
// rules finer than an hour or counted with COUNT are refused.
import { Frequency, RRule } from 'rrule';
import type { Options } from 'rrule';
import { toWallClock } from './zoned-time';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A checked rule: its options (no DTSTART) and the wall-clock time its counting starts from. */
export interface CalendarRule {
  text: string;
  options: Partial<Options>;
  /** The calendar's `start` as floating ms; null: counted from the local midnight of a search. */
  startWallMs: number | null;
}

/** Ranges of the numeric BY… parts; zero is never allowed. */
const RANGES: Array<[keyof Options, string, number, number, boolean]> = [
  ['bymonth', 'BYMONTH', 1, 12, false],
  ['bymonthday', 'BYMONTHDAY', 1, 31, true],
  ['byyearday', 'BYYEARDAY', 1, 366, true],
  ['byweekno', 'BYWEEKNO', 1, 53, true],
  ['bysetpos', 'BYSETPOS', 1, 366, true],
  ['byhour', 'BYHOUR', 0, 23, false],
  ['byminute', 'BYMINUTE', 0, 59, false],
  ['bysecond', 'BYSECOND', 0, 59, false],
];

function asList(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function rangeProblem(options: Partial<Options>): string | undefined {
  for (const [key, part, min, max, negative] of RANGES) {
    for (const value of asList(options[key])) {
      const n = typeof value === 'number' ? value : Number.NaN;
      const magnitude = negative ? Math.abs(n) : n;
      if (!Number.isInteger(n) || magnitude < min || magnitude > max)
        return `${part} must be ${negative ? `±${min}…${max}` : `${min}…${max}`}, got ${String(value)}`;
    }
  }
  for (const day of asList(options.byweekday)) {
    if (day === null || day === undefined) return 'BYDAY must list MO, TU, WE, TH, FR, SA or SU';
    const n = typeof day === 'object' ? (day as { n?: number }).n : undefined;
    if (n !== undefined && (n === 0 || Math.abs(n) > 53)) return `BYDAY position must be ±1…53, got ${n}`;
  }
  const interval = options.interval ?? 1;
  if (!Number.isInteger(interval) || interval < 1 || interval > 1000)
    return `INTERVAL must be 1…1000, got ${String(interval)}`;
  return undefined;
}

/** Whether the rule names its days itself; otherwise `rrule` takes them from DTSTART. */
function pinsDays(options: Partial<Options>): boolean {
  if (
    options.freq !== Frequency.WEEKLY &&
    options.freq !== Frequency.MONTHLY &&
    options.freq !== Frequency.YEARLY
  )
    return true;
  const named = [
    options.byweekno,
    options.byyearday,
    options.bymonthday,
    options.byweekday,
    options.byeaster,
  ];
  return named.some((value) => asList(value).length > 0);
}

/**
 * Reads and checks one RRULE line for a calendar in `zone`; `startWallMs` is the calendar's
 * `start` (floating ms) or null. Returns the rule or what is wrong with it.
 */
export function readCalendarRule(
  text: string,
  zone: string,
  startWallMs: number | null,
): { ok: true; rule: CalendarRule } | { ok: false; problem: string } {
  const fail = (problem: string) => ({ ok: false as const, problem });
  if (/[\r\n]/.test(text)) return fail('must be one RRULE line (write several rules as several items)');
  let options: Partial<Options>;
  try {
    options = RRule.parseString(text.trim());
  } catch (error) {
    return fail(`cannot read \`${text}\`: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (options.dtstart != null || options.tzid != null)
    return fail('DTSTART and TZID are not written in the rule: use the calendar `start` and `timezone`');
  if (options.freq === undefined) return fail('needs FREQ, e.g. FREQ=WEEKLY;BYDAY=MO;BYHOUR=9');
  if (options.freq === Frequency.MINUTELY || options.freq === Frequency.SECONDLY)
    return fail('FREQ finer than HOURLY is not supported: use HOURLY or coarser with BYMINUTE');
  if (options.count != null) return fail('COUNT is not supported: end the rule with UNTIL');
  const range = rangeProblem(options);
  if (range !== undefined) return fail(range);
  if (startWallMs === null && (options.interval ?? 1) > 1)
    return fail('INTERVAL needs the calendar `start`, which fixes the periods that count');
  if (startWallMs === null && !pinsDays(options))
    return fail(
      'needs BYDAY or BYMONTHDAY (or the calendar `start`): otherwise its day would depend on when it is read',
    );
  // UNTIL with Z is an instant; without, a local time like every other time of the rule.
  if (options.until != null && /UNTIL=\d{8}T\d{6}Z/i.test(text))
    options = { ...options, until: new Date(toWallClock(zone, options.until.getTime())) };
  const rule: CalendarRule = { text, options, startWallMs };
  try {
    wallOccurrences(rule, Date.UTC(2025, 0, 1), Date.UTC(2025, 0, 2));
  } catch (error) {
    return fail(`cannot expand \`${text}\`: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { ok: true, rule };
}

/** The length of one period of a rule whose periods are fixed in wall-clock time, if they are. */
function fixedPeriodMs(options: Partial<Options>): number | undefined {
  const interval = options.interval ?? 1;
  if (options.freq === Frequency.HOURLY) return interval * HOUR_MS;
  if (options.freq === Frequency.DAILY) return interval * DAY_MS;
  if (options.freq === Frequency.WEEKLY) return interval * 7 * DAY_MS;
  return undefined;
}

/**
 * Where `rrule` starts counting for a search from `fromWallMs`: the calendar's start moved forward
 * by whole periods to at least one period before the search (same phase, same defaults), or the
 * local midnight before the search when there is no start.
 */
function countingStart(rule: CalendarRule, fromWallMs: number): number {
  const dayBefore = Math.floor(fromWallMs / DAY_MS) * DAY_MS - DAY_MS;
  if (rule.startWallMs === null) return dayBefore;
  const period = fixedPeriodMs(rule.options);
  if (period === undefined || rule.startWallMs >= dayBefore) return rule.startWallMs;
  const periods = Math.floor((dayBefore - rule.startWallMs) / period) - 1;
  return periods > 0 ? rule.startWallMs + periods * period : rule.startWallMs;
}

/** Occurrence starts within [fromWallMs, untilWallMs], as floating ms (wall-clock read as UTC). */
export function wallOccurrences(rule: CalendarRule, fromWallMs: number, untilWallMs: number): number[] {
  const dtstart = new Date(countingStart(rule, fromWallMs));
  const expanded = new RRule({ ...rule.options, dtstart }, true);
  return expanded.between(new Date(fromWallMs), new Date(untilWallMs), true).map((date) => date.getTime());
}
