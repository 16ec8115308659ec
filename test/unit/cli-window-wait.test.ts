// A run waiting for a change window says so, like a run queued on a lock: on the header line of
// the live view, once in piped output, and in --json with the time it opens.
import type { RunSnapshot } from '../../cli/run-observer';
import { runWaitsFor } from '../../cli/output/progress-views';
import { runJson } from '../../cli/output/run-report';
import type { RunProgress } from '../../contract/run-messages';

const T0 = Date.UTC(2030, 11, 20, 9, 0, 0);
const OPENS = Date.UTC(2031, 0, 4, 0, 0, 0);

function snapshot(extra: Partial<RunProgress>, closed = false): RunSnapshot {
  return {
    workflowId: 'promote-fleet-1',
    runId: 'r1',
    taskQueue: 'q',
    closed,
    temporalStatus: closed ? 'COMPLETED' : 'RUNNING',
    progress: { runbook: 'promote-fleet', status: 'running', startedAt: T0, steps: [], ...extra },
    activities: {},
  };
}

const waiting = {
  windowWait: { stepKey: 'each[3].promote', rule: 'year-end-freeze', calendar: 'year-end', until: OPENS },
};

test('a window wait names the step, the calendar, the rule and when it opens', () => {
  expect(runWaitsFor(snapshot(waiting))).toBe(
    'each[3].promote waits for change window year-end (policy year-end-freeze) until 2031-01-04T00:00:00.000Z',
  );
  expect(runWaitsFor(snapshot({}))).toBe('');
  expect(runWaitsFor(snapshot(waiting, true))).toBe('');
});

test('names that came from a client are escaped', () => {
  const forged = { windowWait: { ...waiting.windowWait, rule: 'x\n  each[4] done' } };
  expect(runWaitsFor(snapshot(forged))).toContain('policy x\\n  each[4] done');
  expect(runWaitsFor(snapshot(forged))).not.toContain('\n');
});

test('--json carries the wait with the opening time as an ISO time', () => {
  const progress = snapshot(waiting).progress as RunProgress;
  expect(
    runJson({ ...snapshot(waiting), status: 'running', outputs: {}, secretOutputs: [], progress }, false),
  ).toMatchObject({
    windowWait: { stepKey: 'each[3].promote', calendar: 'year-end', until: '2031-01-04T00:00:00.000Z' },
  });
});
