// Change calendars: windows and freezes from RRULE lines in a time zone (daylight saving time
// included), absolute periods, occurrences in progress, bounded searches, and the checks that
// refuse rules whose meaning would depend on when they are read.
import { RRule } from 'rrule';
import type { CompiledCalendar } from '../../dsl/calendars';
import { calendarState, compileCalendar, firstOpenTogether, openPeriods } from '../../dsl/calendars';
import { CalendarSpec } from '../../dsl/policy-schema';
import { formatZoned, fromWallClock } from '../../dsl/zoned-time';

const BUSINESS_HOURS = {
  kind: 'window' as const,
  timezone: 'Europe/Berlin',
  rrule: ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
  duration: '8h',
};
const YEAR_END_FREEZE = {
  kind: 'freeze' as const,
  timezone: 'UTC',
  rrule: ['FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=20;BYHOUR=0;BYMINUTE=0;BYSECOND=0'],
  duration: '14d',
};

function calendar(spec: unknown, name = 'cal'): CompiledCalendar {
  const compiled = compileCalendar(name, CalendarSpec.parse(spec));
  if (!compiled.ok) throw new Error(compiled.problems.join('\n'));
  return compiled.calendar;
}

function problems(spec: unknown): string[] {
  const parsed = CalendarSpec.safeParse(spec);
  if (!parsed.success) return parsed.error.issues.map((issue) => issue.message);
  const compiled = compileCalendar('cal', parsed.data);
  return compiled.ok ? [] : compiled.problems;
}

const ms = (iso: string) => Date.parse(iso);

describe('business hours in Europe/Berlin', () => {
  const hours = calendar(BUSINESS_HOURS, 'business-hours');

  it('is open on a weekday afternoon and closes at 17:00 local time', () => {
    // Friday 28 March 2025, 10:00 CET (+01:00).
    expect(calendarState(hours, ms('2025-03-28T09:00:00Z'))).toEqual({
      open: true,
      opensAt: ms('2025-03-28T09:00:00Z'),
      closesAt: ms('2025-03-28T16:00:00Z'),
    });
  });

  it('over a weekend that changes to summer time, opens Monday 09:00 CEST', () => {
    // Saturday 29 March 2025, 12:00 CET; clocks go forward on Sunday 30 March.
    const state = calendarState(hours, ms('2025-03-29T11:00:00Z'));
    expect(state.open).toBe(false);
    expect(state.closesAt).toBeNull();
    expect(state.opensAt).toBe(ms('2025-03-31T07:00:00Z'));
    expect(formatZoned('Europe/Berlin', state.opensAt ?? 0)).toBe('2025-03-31T09:00+02:00');
  });

  it('follows the change back to winter time: Monday after 26 October opens 09:00 CET', () => {
    const state = calendarState(hours, ms('2025-10-25T10:00:00Z'));
    expect(state.opensAt).toBe(ms('2025-10-27T08:00:00Z'));
  });

  it('counts an occurrence that started earlier and still lasts, and ends it on time', () => {
    // Monday 31 March 2025, 16:59 CEST: the 09:00 occurrence lasts until 17:00.
    expect(calendarState(hours, ms('2025-03-31T14:59:00Z'))).toMatchObject({
      open: true,
      closesAt: ms('2025-03-31T15:00:00Z'),
    });
    expect(calendarState(hours, ms('2025-03-31T15:00:00Z'))).toMatchObject({
      open: false,
      opensAt: ms('2025-04-01T07:00:00Z'),
    });
  });

  it('gives the same answer whatever the process time zone is', () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'America/Los_Angeles';
      expect(calendarState(hours, ms('2025-03-29T11:00:00Z')).opensAt).toBe(ms('2025-03-31T07:00:00Z'));
      process.env.TZ = 'Asia/Kolkata';
      expect(calendarState(hours, ms('2025-03-29T11:00:00Z')).opensAt).toBe(ms('2025-03-31T07:00:00Z'));
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});

describe('daylight saving time boundaries', () => {
  const nightly = calendar({
    kind: 'window',
    timezone: 'Europe/Berlin',
    rrule: ['FREQ=DAILY;BYHOUR=2;BYMINUTE=30'],
    duration: '1h',
  });

  it('moves a time skipped by the spring change forward by the gap (02:30 → 03:30 CEST)', () => {
    const starts = openPeriods(nightly, ms('2025-03-29T00:00:00Z'), ms('2025-04-01T00:00:00Z')).map((p) =>
      new Date(p.start).toISOString(),
    );
    expect(starts).toEqual([
      '2025-03-29T01:30:00.000Z', // 02:30 CET
      '2025-03-30T01:30:00.000Z', // 02:30 does not exist: 03:30 CEST
      '2025-03-31T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('takes the first of a time that the autumn change repeats', () => {
    expect(fromWallClock('Europe/Berlin', ms('2025-10-26T02:30:00Z'))).toBe(ms('2025-10-26T00:30:00Z'));
    const state = calendarState(nightly, ms('2025-10-26T00:00:00Z'));
    expect(state.opensAt).toBe(ms('2025-10-26T00:30:00Z'));
  });
});

describe('a freeze', () => {
  const freeze = calendar(YEAR_END_FREEZE, 'year-end-freeze');

  it('in force: closed until its end, with the end as opensAt', () => {
    expect(calendarState(freeze, ms('2025-12-25T12:00:00Z'))).toEqual({
      open: false,
      opensAt: ms('2026-01-03T00:00:00Z'),
      closesAt: null,
    });
  });

  it('in force until the last millisecond of its duration, open right after', () => {
    expect(calendarState(freeze, ms('2026-01-02T23:59:59.999Z')).open).toBe(false);
    expect(calendarState(freeze, ms('2026-01-03T00:00:00Z')).open).toBe(true);
  });

  it('not in force: open, closing when the next freeze begins', () => {
    expect(calendarState(freeze, ms('2025-12-01T00:00:00Z'))).toEqual({
      open: true,
      opensAt: ms('2025-12-01T00:00:00Z'),
      closesAt: ms('2025-12-20T00:00:00Z'),
    });
  });

  it('as an absolute period, local times read in its zone', () => {
    const once = calendar({
      kind: 'freeze',
      timezone: 'Europe/Berlin',
      from: '2025-07-01T18:00',
      until: '2025-07-02T06:00:00+02:00',
    });
    expect(calendarState(once, ms('2025-07-01T15:59:00Z')).open).toBe(true);
    expect(calendarState(once, ms('2025-07-01T16:00:00Z'))).toEqual({
      open: false,
      opensAt: ms('2025-07-02T04:00:00Z'),
      closesAt: null,
    });
    expect(calendarState(once, ms('2025-07-03T00:00:00Z'))).toEqual({
      open: true,
      opensAt: ms('2025-07-03T00:00:00Z'),
      closesAt: null,
    });
  });
});

describe('bounded searches', () => {
  it('a window that never opens again says so with null instead of searching on', () => {
    const ended = calendar({
      kind: 'window',
      timezone: 'UTC',
      rrule: ['FREQ=DAILY;BYHOUR=9;UNTIL=20200101T000000Z'],
      duration: '1h',
    });
    expect(calendarState(ended, ms('2025-01-01T00:00:00Z'))).toEqual({
      open: false,
      opensAt: null,
      closesAt: null,
    });
  });

  it('a freeze that never ends within two years gives opensAt null', () => {
    const always = calendar({ kind: 'freeze', timezone: 'UTC', rrule: ['FREQ=DAILY'], duration: '1d' });
    expect(calendarState(always, ms('2025-01-01T12:00:00Z'))).toEqual({
      open: false,
      opensAt: null,
      closesAt: null,
    });
  });

  it('an interval rule with a start keeps its phase however far the start lies back', () => {
    const rule = 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=22';
    const fortnightly = calendar({
      kind: 'window',
      timezone: 'UTC',
      rrule: [rule],
      duration: '2h',
      start: '2001-01-02T00:00',
    });
    const at = ms('2025-06-01T00:00:00Z');
    const expected = new RRule({
      ...RRule.parseString(rule),
      dtstart: new Date(ms('2001-01-02T00:00:00Z')),
    }).after(new Date(at));
    expect(calendarState(fortnightly, at).opensAt).toBe(expected?.getTime());
  });
});

describe('first time several calendars are open together', () => {
  it('after a year-end freeze, the first business hours: Monday 5 January 09:00 CET', () => {
    const hours = calendar(BUSINESS_HOURS);
    const freeze = calendar(YEAR_END_FREEZE);
    // Friday 19 December 2025, 18:00 CET: business hours are over, the freeze begins at midnight UTC.
    expect(firstOpenTogether([hours, freeze], ms('2025-12-19T17:00:00Z'))).toBe(ms('2026-01-05T08:00:00Z'));
    expect(firstOpenTogether([hours, freeze], ms('2025-12-19T10:00:00Z'))).toBe(ms('2025-12-19T10:00:00Z'));
  });
});

describe('calendar checks', () => {
  const base = { kind: 'window', timezone: 'UTC', duration: '1h' };

  it.each([
    ['FREQ=DAILY;BYHOUR=25', 'BYHOUR must be 0…23, got 25'],
    ['FREQ=DAILY;BYMONTHDAY=40', 'BYMONTHDAY must be ±1…31, got 40'],
    ['FREQ=DAILY;COUNT=3', 'COUNT is not supported'],
    ['FREQ=MINUTELY', 'FREQ finer than HOURLY is not supported'],
    ['BYDAY=MO', 'needs FREQ'],
    ['FREQ=DAILY;FOO=1', "Unknown RRULE property 'FOO'"],
    ['DTSTART;TZID=Europe/Berlin:20240101T090000', 'DTSTART and TZID are not written in the rule'],
    ['FREQ=WEEKLY;INTERVAL=2;BYDAY=MO', 'INTERVAL needs the calendar `start`'],
    ['FREQ=WEEKLY;BYHOUR=9', 'needs BYDAY or BYMONTHDAY'],
    ['FREQ=DAILY;BYDAY=XX', 'BYDAY must list MO'],
  ])('refuses %s', (rule, message) => {
    const [problem, ...others] = problems({ ...base, rrule: [rule] });
    expect(others).toEqual([]);
    expect(problem).toMatch(/^calendars\.cal\.rrule\[0\]: /);
    expect(problem).toContain(message);
  });

  it('refuses a zone the platform does not know, and a recurrence without a duration', () => {
    expect(problems({ ...base, timezone: 'Mars/Olympus', rrule: ['FREQ=DAILY'] })).toEqual([
      'must be an IANA time zone such as Europe/Berlin or UTC',
    ]);
    expect(problems({ kind: 'window', timezone: 'UTC', rrule: ['FREQ=DAILY'] })).toEqual([
      'is needed with rrule: how long each occurrence lasts',
    ]);
  });

  it('refuses mixing both forms, an impossible date, and an end before the start', () => {
    expect(
      problems({ ...base, rrule: ['FREQ=DAILY'], from: '2025-01-01', until: '2025-01-02' })[0],
    ).toContain('give one of: rrule with duration, from and until, or ics');
    expect(
      problems({ kind: 'freeze', timezone: 'UTC', from: '2025-02-30', until: '2025-03-02' })[0],
    ).toContain('must be an ISO time');
    expect(problems({ kind: 'freeze', timezone: 'UTC', from: '2025-03-02', until: '2025-03-01' })).toEqual([
      'calendars.cal.until: must be after from',
    ]);
  });

  it('accepts an interval or an unpinned rule once a start fixes them', () => {
    expect(problems({ ...base, rrule: ['FREQ=WEEKLY;INTERVAL=2'], start: '2025-01-06T09:00' })).toEqual([]);
  });
});
