// A rehearsal's clocks: a case's `clock` as an instant runs on in real time; as `{ at, perCheck }`
// it is stepped, one step per reading, and a wait for a window moves it to the window's opening.
import { realWaitMs, systemClock } from '../../activities/deps';
import { clockFrom, steppedClock } from '../../rehearsal/case-worker';
import { TestCase } from '../../rehearsal/test-file-schema';

const AT = Date.parse('2030-12-19T20:00:00Z');
const HOUR = 3_600_000;

test('a stepped clock reads `at` first, then one step later each time', () => {
  const clock = steppedClock(AT, HOUR);
  expect([clock.now(), clock.now(), clock.now()]).toEqual([AT, AT + HOUR, AT + 2 * HOUR]);
});

test('a wait on a stepped clock takes no real time and moves the clock to its end', () => {
  const clock = steppedClock(AT, HOUR);
  const now = clock.now();
  expect(realWaitMs(clock, AT + 10 * HOUR, now)).toBe(0);
  expect(clock.now()).toBe(AT + 11 * HOUR);
});

test('a wait that ends in the past leaves a stepped clock where it is', () => {
  const clock = steppedClock(AT, HOUR);
  clock.now();
  clock.now();
  expect(realWaitMs(clock, AT, AT + HOUR)).toBe(0);
  expect(clock.now()).toBe(AT + 2 * HOUR);
});

test('on real time a wait lasts until its end, never less than nothing', () => {
  expect(realWaitMs(systemClock, 5_000, 2_000)).toBe(3_000);
  expect(realWaitMs(systemClock, 1_000, 2_000)).toBe(0);
  const clock = clockFrom(AT, Date.now());
  expect(clock.now()).toBeGreaterThanOrEqual(AT);
  expect(clock.waitUntil).toBeUndefined();
});

function caseWithClock(clock: unknown) {
  return TestCase.safeParse({ name: 'c', runbook: 'r.yaml', clock, expect: { status: 'succeeded' } });
}

test('a case clock is an instant or a stepped clock with a duration per check', () => {
  expect(caseWithClock('2030-12-19T20:00:00Z').success).toBe(true);
  expect(caseWithClock({ at: '2030-12-19T20:00:00Z', perCheck: '1h' }).success).toBe(true);
  const bad = caseWithClock({ at: '2030-12-19T20:00:00Z', perCheck: 'an hour' });
  expect(bad.success).toBe(false);
  expect(JSON.stringify(bad.error?.issues)).toContain('duration');
  expect(caseWithClock({ at: '2030-12-19T20:00:00Z', perCheck: '1h', speed: 2 }).success).toBe(false);
});
