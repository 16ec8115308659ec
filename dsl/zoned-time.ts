// Wall-clock time in an IANA time zone and back, with the platform's Intl data only. Calendars
// expand recurrences in "floating" wall-clock time (a Date whose UTC fields are the local fields)
// and convert each occurrence here, so the result never depends on the process's own time zone.
// Pure: no I/O.

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Formatters by zone: building one is costly, and a zone's formatter is immutable. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** Whether the platform knows the IANA zone (e.g. `Europe/Berlin`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Offsets by zone and minute: offsets change at whole minutes, formatting costs tens of µs, and
 * the same occurrences are converted again each time a calendar is asked about (before each step).
 */
const offsets = new Map<string, number>();
const OFFSET_CACHE_LIMIT = 50_000;

/** The zone's offset from UTC at an instant, in ms (Berlin in summer: +7,200,000). */
export function zoneOffsetMs(zone: string, instantMs: number): number {
  const bucket = Math.floor(instantMs / MINUTE_MS);
  const key = `${zone}|${bucket}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const offset = formattedOffsetMs(zone, bucket * MINUTE_MS);
  if (offsets.size >= OFFSET_CACHE_LIMIT) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

function formattedOffsetMs(zone: string, whole: number): number {
  const fields: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(whole)))
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  const wall = Date.UTC(
    fields.year ?? 1970,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  return wall - whole;
}

/** The wall-clock time at an instant, as floating ms (the local fields read as if UTC). */
export function toWallClock(zone: string, instantMs: number): number {
  return instantMs + zoneOffsetMs(zone, instantMs);
}

/**
 * The instant a wall-clock time names in a zone. Like RFC 5545 (and Temporal's `compatible`):
 * a time that occurs twice when clocks go back is the earlier one; a time skipped when clocks go
 * forward is read with the offset before the gap, so 02:30 on the spring-forward night in Berlin
 * is 03:30 summer time.
 */
export function fromWallClock(zone: string, wallMs: number): number {
  // No zone changes its offset twice within a day, so the offsets a day apart are the candidates.
  const before = zoneOffsetMs(zone, wallMs - DAY_MS);
  const after = zoneOffsetMs(zone, wallMs + DAY_MS);
  if (before === after) return wallMs - before;
  const candidates = [wallMs - before, wallMs - after].filter(
    (instant) => toWallClock(zone, instant) === wallMs,
  );
  if (candidates.length > 0) return Math.min(...candidates);
  return wallMs - before;
}

const LOCAL_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:\d{2})?$/;

/** An ISO 8601 date or date-time as calendars write it: with `Z`/an offset, or local to the zone. */
export const ISO_TIME_EXAMPLES = '2025-12-20, 2025-12-20T18:00 (local) or 2025-12-20T17:00:00Z';

export type IsoTime = { kind: 'instant'; ms: number } | { kind: 'local'; wallMs: number };

/** Reads an ISO date or date-time; undefined when it is not one or names no real date. */
export function parseIsoTime(text: string): IsoTime | undefined {
  const match = LOCAL_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, offset] = match;
  const fields = [year, month, day, hour ?? '0', minute ?? '0', second ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const wallMs = Date.UTC(y, mo - 1, d, h, mi, s, Number((fraction ?? '0').padEnd(3, '0')));
  // Date.UTC rolls 31 February over into March; a real date keeps its own day.
  if (new Date(wallMs).getUTCDate() !== d) return undefined;
  if (offset === undefined) return { kind: 'local', wallMs };
  if (offset === 'Z') return { kind: 'instant', ms: wallMs };
  const sign = offset.startsWith('-') ? -1 : 1;
  const [offsetHours, offsetMinutes] = offset.slice(1).split(':').map(Number) as [number, number];
  return { kind: 'instant', ms: wallMs - sign * (offsetHours * 60 + offsetMinutes) * MINUTE_MS };
}

/** The instant an ISO time names, reading a local one in `zone`. */
export function isoTimeToMs(time: IsoTime, zone: string): number {
  return time.kind === 'instant' ? time.ms : fromWallClock(zone, time.wallMs);
}

/** An instant as local ISO time with its offset, e.g. `2025-03-31T09:00+02:00`. */
export function formatZoned(zone: string, instantMs: number): string {
  const offset = zoneOffsetMs(zone, instantMs);
  const local = new Date(instantMs + offset).toISOString();
  const seconds = local.slice(16, 19) === ':00' ? '' : local.slice(16, 19);
  const minutes = Math.abs(offset) / MINUTE_MS;
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${local.slice(0, 16)}${seconds}${sign}${hh}:${mm}`;
}
