// Change calendars kept as iCalendar files (`ics:`): recurring events in the file's VTIMEZONE
// (across a daylight-saving change), EXDATE and moved instances, a TZID the file does not define,
// all-day dates in the calendar's zone; and clear problems for a file that is missing or is not
// iCalendar.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { calendarFileReader } from '../../dsl/calendar-files';
import {
  calendarState,
  compileCalendar,
  occurrencesBetween,
  type CompiledCalendar,
} from '../../dsl/calendars';
import { compileGovernance } from '../../dsl/policies';
import { CalendarSpec } from '../../dsl/policy-schema';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'governance');
const read = calendarFileReader(FIXTURES);
const ms = (iso: string) => Date.parse(iso);

function calendar(spec: unknown): CompiledCalendar {
  const compiled = compileCalendar('cal', CalendarSpec.parse(spec), read);
  if (!compiled.ok) throw new Error(compiled.problems.join('\n'));
  return compiled.calendar;
}

const maintenance = () => calendar({ kind: 'window', timezone: 'UTC', ics: 'maintenance-windows.ics' });

test('a weekly event recurs at its wall-clock time in the file’s zone, across daylight saving', () => {
  const windows = occurrencesBetween(maintenance(), ms('2026-01-05T00:00:00Z'), ms('2026-01-08T00:00:00Z'));
  // 22:00–24:00 in Berlin in winter is 21:00–23:00 UTC.
  expect(windows).toEqual([{ start: ms('2026-01-06T21:00:00Z'), end: ms('2026-01-06T23:00:00Z') }]);
  const summer = occurrencesBetween(maintenance(), ms('2026-06-01T00:00:00Z'), ms('2026-06-03T00:00:00Z'));
  expect(summer).toEqual([{ start: ms('2026-06-02T20:00:00Z'), end: ms('2026-06-02T22:00:00Z') }]);
});

test('an excluded date has no occurrence and a moved instance is where it was moved to', () => {
  const january = occurrencesBetween(maintenance(), ms('2026-01-10T00:00:00Z'), ms('2026-01-28T00:00:00Z'));
  expect(january.map((period) => new Date(period.start).toISOString())).toEqual([
    '2026-01-21T21:00:00.000Z',
    '2026-01-27T21:00:00.000Z',
  ]);
});

test('a TZID the file defines no VTIMEZONE for is read as the IANA zone of that name', () => {
  const march = occurrencesBetween(maintenance(), ms('2026-03-01T00:00:00Z'), ms('2026-03-02T00:00:00Z'));
  expect(march).toEqual([{ start: ms('2026-03-01T00:00:00Z'), end: ms('2026-03-01T01:00:00Z') }]);
});

test('a window calendar from a file is open inside its events and says when it opens next', () => {
  const window = maintenance();
  expect(calendarState(window, ms('2026-01-06T22:00:00Z')).open).toBe(true);
  const closed = calendarState(window, ms('2026-01-07T10:00:00Z'));
  expect(closed.open).toBe(false);
  expect(closed.opensAt).toBe(ms('2026-01-21T21:00:00Z'));
});

test('an all-day freeze is read in the calendar’s time zone', () => {
  const freeze = calendar({ kind: 'freeze', timezone: 'Europe/Berlin', ics: 'year-end-freeze.ics' });
  expect(occurrencesBetween(freeze, ms('2026-12-01T00:00:00Z'), ms('2027-02-01T00:00:00Z'))).toEqual([
    { start: ms('2026-12-19T23:00:00Z'), end: ms('2027-01-03T23:00:00Z') },
  ]);
  expect(calendarState(freeze, ms('2026-12-24T12:00:00Z')).open).toBe(false);
  expect(calendarState(freeze, ms('2027-01-05T12:00:00Z')).open).toBe(true);
});

test('a missing file, a file that is not iCalendar and an inline section are refused with where', () => {
  const problems = (spec: unknown, reader = read) => {
    const compiled = compileCalendar('cal', CalendarSpec.parse(spec), reader);
    return compiled.ok ? [] : compiled.problems;
  };
  expect(problems({ kind: 'freeze', timezone: 'UTC', ics: 'no-such.ics' })).toEqual([
    expect.stringMatching(/^calendars\.cal\.ics: cannot read no-such\.ics: ENOENT/),
  ]);
  expect(problems({ kind: 'freeze', timezone: 'UTC', ics: 'x.ics' }, () => 'not a calendar')).toEqual([
    expect.stringMatching(/^calendars\.cal\.ics: x\.ics is not an iCalendar file/),
  ]);
  const inline = compileCalendar(
    'cal',
    CalendarSpec.parse({ kind: 'freeze', timezone: 'UTC', ics: 'a.ics' }),
  );
  expect(inline.ok ? [] : inline.problems).toEqual([expect.stringContaining('can only be named in a file')]);
  expect(
    CalendarSpec.safeParse({ kind: 'freeze', timezone: 'UTC', ics: 'a.ics', from: '2026-01-01T00:00:00Z' })
      .success,
  ).toBe(false);
});

test('a governance section names a calendar file relative to the file it is in', () => {
  const seen: string[] = [];
  const compiled = compileGovernance(
    {
      calendars: { freeze: { kind: 'freeze', timezone: 'UTC', ics: 'calendars/freeze.ics' } },
      policies: [{ name: 'f', when: 'true', effect: 'window', calendar: 'freeze', outside: 'wait' }],
    },
    calendarFileReader('/etc/tideline', (file) => {
      seen.push(file);
      return readFileSync(path.join(FIXTURES, 'year-end-freeze.ics'), 'utf8');
    }),
  );
  expect(compiled.ok).toBe(true);
  expect(seen).toEqual(['/etc/tideline/calendars/freeze.ics']);
});
