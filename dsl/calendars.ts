// Change calendars: a `window` lets changes happen only inside its occurrences, a `freeze` lets
// none happen inside them. Occurrences recur by RRULE lines in the calendar's time zone (expanded
// by calendar-rules.ts in wall-clock time, converted to instants here, so daylight saving time
// moves them correctly) and last `duration` of elapsed time; or one absolute period; or the events
// of an iCalendar file (ical-calendar.ts). An
// occurrence that started before the time asked about and still lasts counts.
//
// Pure and bounded: every search looks at most OPEN_HORIZON_MS ahead; what lies beyond is
// reported as unknown (null), never searched for.
import { parseDuration } from './durations';
import { icalPeriods, readIcal, type IcalEvents } from './ical-calendar';
import type { CalendarRule } from './calendar-rules';
import { readCalendarRule, wallOccurrences } from './calendar-rules';
import type { CalendarSpec } from './policy-schema';
import { fromWallClock, isoTimeToMs, parseIsoTime, toWallClock } from './zoned-time';

const DAY_MS = 86_400_000;
/** How far ahead a calendar is searched for its next opening or closing (two years). */
export const OPEN_HORIZON_MS = 731 * DAY_MS;
/** A first, short search; most questions are answered within it. */
const FIRST_HORIZON_MS = 31 * DAY_MS;

type Occurrences =
  | { kind: 'recurring'; rules: readonly CalendarRule[]; durationMs: number }
  | { kind: 'absolute'; fromMs: number; untilMs: number }
  | { kind: 'ical'; file: string; calendar: IcalEvents };

/** Reads a file a calendar names (`ics`), relative to the file that names it; throws when it cannot. */
export type CalendarFileReader = (file: string) => string;

export interface CompiledCalendar {
  readonly name: string;
  readonly kind: 'window' | 'freeze';
  readonly timezone: string;
  readonly occurrences: Occurrences;
}

/** A half-open period [start, end) in epoch ms. */
export interface Period {
  start: number;
  end: number;
}

export interface CalendarState {
  /** Whether the calendar lets changes happen at the time asked about. */
  open: boolean;
  /** When it next lets changes happen: the time asked about when open; null if not within the horizon. */
  opensAt: number | null;
  /** When the current open period ends; null when closed or not within the horizon. */
  closesAt: number | null;
}

export type CalendarCompilation =
  { ok: true; calendar: CompiledCalendar } | { ok: false; problems: string[] };

/** Checks and prepares a calendar of the governance section; problems name `calendars.<name>.…`. */
export function compileCalendar(
  name: string,
  spec: CalendarSpec,
  readFile?: CalendarFileReader,
): CalendarCompilation {
  const where = `calendars.${name}`;
  const problems: string[] = [];
  const zone = spec.timezone;
  if (spec.ics !== undefined) return compileIcalCalendar(name, spec, spec.ics, readFile);
  if (spec.rrule !== undefined && spec.duration !== undefined) {
    let startWallMs: number | null = null;
    if (spec.start !== undefined) {
      const start = parseIsoTime(spec.start);
      startWallMs = start?.kind === 'local' ? start.wallMs : null;
      const year = startWallMs === null ? 0 : new Date(startWallMs).getUTCFullYear();
      if (year < 1970 || year > 2200) problems.push(`${where}.start: must be a date from 1970 to 2200`);
    }
    const rules: CalendarRule[] = [];
    spec.rrule.forEach((text, index) => {
      const read = readCalendarRule(text, zone, startWallMs);
      if (read.ok) rules.push(read.rule);
      else problems.push(`${where}.rrule[${index}]: ${read.problem}`);
    });
    if (problems.length > 0) return { ok: false, problems };
    const durationMs = parseDuration(spec.duration);
    return {
      ok: true,
      calendar: {
        name,
        kind: spec.kind,
        timezone: zone,
        occurrences: { kind: 'recurring', rules, durationMs },
      },
    };
  }
  const from = spec.from === undefined ? undefined : parseIsoTime(spec.from);
  const until = spec.until === undefined ? undefined : parseIsoTime(spec.until);
  if (from === undefined || until === undefined)
    return { ok: false, problems: [`${where}: give rrule with duration, or from and until`] };
  const fromMs = isoTimeToMs(from, zone);
  const untilMs = isoTimeToMs(until, zone);
  if (untilMs <= fromMs) return { ok: false, problems: [`${where}.until: must be after from`] };
  return {
    ok: true,
    calendar: { name, kind: spec.kind, timezone: zone, occurrences: { kind: 'absolute', fromMs, untilMs } },
  };
}

function compileIcalCalendar(
  name: string,
  spec: CalendarSpec,
  file: string,
  readFile: CalendarFileReader | undefined,
): CalendarCompilation {
  const where = `calendars.${name}.ics`;
  if (readFile === undefined)
    return {
      ok: false,
      problems: [`${where}: a calendar file can only be named in a file (a worker or test configuration)`],
    };
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    return { ok: false, problems: [`${where}: cannot read ${file}: ${(error as Error).message}`] };
  }
  const read = readIcal(text);
  if (!read.ok) return { ok: false, problems: [`${where}: ${file} ${read.problem}`] };
  return {
    ok: true,
    calendar: {
      name,
      kind: spec.kind,
      timezone: spec.timezone,
      occurrences: { kind: 'ical', file, calendar: read.calendar },
    },
  };
}

/** Occurrences that overlap [fromMs, untilMs), sorted by start. */
export function occurrencesBetween(calendar: CompiledCalendar, fromMs: number, untilMs: number): Period[] {
  const occurrences = calendar.occurrences;
  if (occurrences.kind === 'ical')
    return icalPeriods(occurrences.calendar, calendar.timezone, fromMs, untilMs);
  if (occurrences.kind === 'absolute') {
    const { fromMs: start, untilMs: end } = occurrences;
    return start < untilMs && end > fromMs ? [{ start, end }] : [];
  }
  const zone = calendar.timezone;
  const earliest = fromMs - occurrences.durationMs;
  // Wall-clock bounds a day wider than the instants: no zone is more than a day off UTC.
  const wallFrom = toWallClock(zone, earliest) - DAY_MS;
  const wallUntil = toWallClock(zone, untilMs) + DAY_MS;
  const starts = new Set<number>();
  for (const rule of occurrences.rules) {
    for (const wall of wallOccurrences(rule, wallFrom, wallUntil)) {
      const start = fromWallClock(zone, wall);
      if (start > earliest && start < untilMs) starts.add(start);
    }
  }
  return [...starts].sort((a, b) => a - b).map((start) => ({ start, end: start + occurrences.durationMs }));
}

/** Sorted periods with overlapping and touching ones joined. */
function merge(periods: readonly Period[]): Period[] {
  const merged: Period[] = [];
  for (const period of periods) {
    const last = merged[merged.length - 1];
    if (last !== undefined && period.start <= last.end) last.end = Math.max(last.end, period.end);
    else merged.push({ ...period });
  }
  return merged;
}

/** When the calendar lets changes happen within [fromMs, untilMs), as sorted disjoint periods. */
export function openPeriods(calendar: CompiledCalendar, fromMs: number, untilMs: number): Period[] {
  const occupied = merge(occurrencesBetween(calendar, fromMs, untilMs)).map((period) => ({
    start: Math.max(period.start, fromMs),
    end: Math.min(period.end, untilMs),
  }));
  if (calendar.kind === 'window') return occupied;
  const open: Period[] = [];
  let cursor = fromMs;
  for (const frozen of occupied) {
    if (frozen.start > cursor) open.push({ start: cursor, end: frozen.start });
    cursor = Math.max(cursor, frozen.end);
  }
  if (cursor < untilMs) open.push({ start: cursor, end: untilMs });
  return open;
}

/** Whether the calendar lets changes happen at `atMs`, and when that next changes. */
export function calendarState(calendar: CompiledCalendar, atMs: number): CalendarState {
  for (const horizon of [FIRST_HORIZON_MS, OPEN_HORIZON_MS]) {
    const end = atMs + horizon;
    const last = horizon === OPEN_HORIZON_MS;
    const [first] = openPeriods(calendar, atMs, end);
    if (first !== undefined && first.start <= atMs) {
      // An open period reaching the search's end may go on beyond it: search further, or say unknown.
      if (first.end < end) return { open: true, opensAt: atMs, closesAt: first.end };
      if (last) return { open: true, opensAt: atMs, closesAt: null };
    } else if (first !== undefined) return { open: false, opensAt: first.start, closesAt: null };
    else if (last) return { open: false, opensAt: null, closesAt: null };
  }
  return { open: false, opensAt: null, closesAt: null };
}

/** Intersection of two sorted lists of disjoint periods. */
function intersect(a: readonly Period[], b: readonly Period[]): Period[] {
  const both: Period[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const left = a[i] as Period;
    const right = b[j] as Period;
    const start = Math.max(left.start, right.start);
    const end = Math.min(left.end, right.end);
    if (start < end) both.push({ start, end });
    if (left.end < right.end) i += 1;
    else j += 1;
  }
  return both;
}

/** The first time at or after `atMs` when every calendar lets changes happen; null if not within the horizon. */
export function firstOpenTogether(calendars: readonly CompiledCalendar[], atMs: number): number | null {
  for (const horizon of [FIRST_HORIZON_MS, OPEN_HORIZON_MS]) {
    const end = atMs + horizon;
    let together: Period[] = [{ start: atMs, end }];
    for (const calendar of calendars) {
      together = intersect(together, openPeriods(calendar, atMs, end));
      if (together.length === 0) break;
    }
    const [first] = together;
    if (first !== undefined) return first.start;
  }
  return null;
}
