// A mutant case's limit follows its baseline, and a kill by time counts only when the baseline
// ended well inside the limit that ran out: the case's, or the step's deadline.
import type { CaseResult } from '../../rehearsal/case-runner';
import { DERIVED_LIMITS, judgeTimeKill, mutantLimitMs } from '../../rehearsal/mutation/time-limits';

const policy = { factor: 3, marginMs: 10_000, floorMs: 30_000, wellInside: 0.5 };

function result(durationMs: number, extra: Partial<CaseResult> = {}): CaseResult {
  return {
    file: 'runbooks/x.test.yaml',
    name: 'a case',
    runbook: 'x.yaml',
    passed: false,
    durationMs,
    workflowId: undefined,
    mismatches: [],
    steps: [],
    ...extra,
  };
}

test('the limit is factor × baseline + margin, never under the floor', () => {
  expect(mutantLimitMs(policy, 2_000)).toBe(30_000);
  expect(mutantLimitMs(policy, 20_000)).toBe(70_000);
  expect(mutantLimitMs(policy, 40_000)).toBe(130_000);
  // The shipped suite's policy gives a case at least twice its baseline: its time kills are backed.
  for (const baselineMs of [0, 5_000, 60_000, 600_000])
    expect(mutantLimitMs(DERIVED_LIMITS, baselineMs)).toBeGreaterThanOrEqual(2 * baselineMs);
});

test('a case limit that ran out is a kill when the baseline took at most half of it', () => {
  const timedOut = result(70_000, { error: { code: 'TEST_CASE_TIMEOUT', message: 'late' } });
  expect(judgeTimeKill(0.5, timedOut, result(20_000, { passed: true }), 70_000)).toEqual({
    ran: 'case',
    limitMs: 70_000,
    baselineMs: 20_000,
    conclusive: true,
  });
  // A flat limit the baseline came close to: the kill rests on the machine's pace.
  expect(judgeTimeKill(0.5, timedOut, result(90_000, { passed: true }), 120_000)).toMatchObject({
    conclusive: false,
  });
});

test("a step past its deadline is judged by that step's time in the baseline", () => {
  const missed = { stepKey: 'undo.service_gone', limitMs: 1_800_000, budgetMs: 21_000 };
  const timedOut = result(25_000, { error: { code: 'TEST_CASE_TIMEOUT', message: 'late' }, missed });
  const step = (startedAt: number, endedAt?: number) =>
    result(9_000, {
      passed: true,
      steps: [
        {
          key: 'undo.service_gone',
          id: 'service_gone',
          kind: 'wait',
          status: 'done',
          startedAt,
          ...(endedAt !== undefined && { endedAt }),
        },
      ],
    });
  expect(judgeTimeKill(0.5, timedOut, step(1_000, 3_000), 70_000)).toEqual({
    ran: 'step',
    limitMs: 21_000,
    baselineMs: 2_000,
    conclusive: true,
  });
  // The step took most of its budget in the baseline too.
  expect(judgeTimeKill(0.5, timedOut, step(1_000, 16_000), 70_000)).toMatchObject({ conclusive: false });
  // The step never ran (or never ended) in the baseline: nothing backs the kill.
  expect(judgeTimeKill(0.5, timedOut, step(1_000), 70_000)).toMatchObject({
    baselineMs: undefined,
    conclusive: false,
  });
  expect(judgeTimeKill(0.5, timedOut, result(9_000, { passed: true }), 70_000)).toMatchObject({
    conclusive: false,
  });
});
