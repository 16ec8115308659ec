// A change calendar kept as an iCalendar file (RFC 5545, as calendar tools export it), read with
// ical.js: every VEVENT is an occurrence, recurring by its RRULE and RDATE less its EXDATE, with
// moved or changed instances (RECURRENCE-ID) in place of the ones they replace. Times with a TZID
// use the file's VTIMEZONE (or, without one, the IANA zone of that name); floating times and
// all-day dates are read in the calendar's time zone.
import ICAL from 'ical.js';
import { fromWallClock, isTimeZone } from './zoned-time';

type IcalEvent = InstanceType<typeof ICAL.Event>;
type IcalTime = InstanceType<typeof ICAL.Time>;

/**
 * The file's events, each a series (or a single occurrence) with its exceptions related, and the
 * IANA zone its DTSTART names when the file defines no VTIMEZONE of that name.
 */
export interface IcalEvents {
  readonly events: readonly { event: IcalEvent; zone: string | undefined }[];
}

/** At most this many occurrences of one event are walked per question (daily for 270 years). */
const MAX_STEPS = 100_000;

export type IcalReading = { ok: true; calendar: IcalEvents } | { ok: false; problem: string };

export function readIcal(text: string): IcalReading {
  let root: InstanceType<typeof ICAL.Component>;
  try {
    root = new ICAL.Component(ICAL.parse(text));
  } catch (error) {
    return { ok: false, problem: `is not an iCalendar file: ${(error as Error).message}` };
  }
  if (root.name !== 'vcalendar') return { ok: false, problem: 'is not an iCalendar file (no VCALENDAR)' };
  for (const zone of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const masters = new Map<string, IcalEvent>();
  const exceptions: IcalEvent[] = [];
  for (const component of root.getAllSubcomponents('vevent')) {
    const event = new ICAL.Event(component);
    if (event.startDate === null) return { ok: false, problem: `event ${event.uid ?? ''} has no DTSTART` };
    if (event.isRecurrenceException()) exceptions.push(event);
    else masters.set(event.uid, event);
  }
  for (const exception of exceptions) masters.get(exception.uid)?.relateException(exception);
  if (masters.size === 0) return { ok: false, problem: 'holds no events (VEVENT)' };
  const events = [...masters.values()].map((event) => {
    const tzid: unknown = event.component.getFirstProperty('dtstart')?.getParameter('tzid');
    const named =
      typeof tzid === 'string' && ICAL.TimezoneService.get(tzid) === undefined && isTimeZone(tzid);
    return { event, zone: named ? tzid : undefined };
  });
  return { ok: true, calendar: { events } };
}

/** An iCalendar time as an instant, reading floating times and dates in `zone`. */
function instant(time: IcalTime, zone: string): number {
  if (time.zone !== undefined && time.zone !== ICAL.Timezone.localTimezone) return time.toUnixTime() * 1000;
  const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  return fromWallClock(zone, wall);
}

/** The events' occurrences that overlap [fromMs, untilMs), as [start, end) periods. */
export function icalPeriods(
  calendar: IcalEvents,
  zone: string,
  fromMs: number,
  untilMs: number,
): { start: number; end: number }[] {
  const periods: { start: number; end: number }[] = [];
  const collect = (startTime: IcalTime, endTime: IcalTime, zone: string) => {
    const start = instant(startTime, zone);
    const end = instant(endTime, zone);
    if (start < untilMs && end > fromMs && end > start) periods.push({ start, end });
    return start;
  };
  for (const { event, zone: own } of calendar.events) {
    const add = (startTime: IcalTime, endTime: IcalTime) => collect(startTime, endTime, own ?? zone);
    if (!event.isRecurring()) {
      add(event.startDate, event.endDate);
      continue;
    }
    const iterator = event.iterator();
    for (let step = 0, next = iterator.next(); next && step < MAX_STEPS; step += 1, next = iterator.next()) {
      const details = event.getOccurrenceDetails(next);
      if (add(details.startDate, details.endDate) >= untilMs) break;
    }
  }
  return periods.sort((a, b) => a.start - b.start);
}
