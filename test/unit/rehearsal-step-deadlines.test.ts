// A case's deadlines follow the runbook's own: a step's time limit (written, or read from an
// input) scaled to the case cloud's pace plus a slack, a scripted late decision added to its
// approval's; a running step past its budget is the deadline missed, a step that ended is not.
import type { RunProgress, StepRecord } from '../../contract/run-messages';
import type { RunbookDefinition, StepDefinition } from '../../dsl/definition';
import { CASE_TIME_SCALE } from '../../rehearsal/case-cloud';
import {
  missedDeadline,
  missedDeadlineText,
  STEP_DEADLINE_SLACK_MS,
  stepDeadlines,
} from '../../rehearsal/step-deadlines';

const base = { compensate: [] as StepDefinition[], continueOnError: false };
const definition: RunbookDefinition = {
  apiVersion: 'tideline/v1',
  name: 'deadlines',
  description: '',
  inputs: {},
  outputs: {},
  steps: [
    {
      ...base,
      kind: 'call',
      id: 'create',
      action: 'service.create',
      actionKind: 'create',
      with: {},
      adopt: false,
      compensate: [
        {
          ...base,
          kind: 'wait',
          id: 'gone',
          action: 'service.get',
          with: {},
          untilDeleted: true,
          intervalMs: 1000,
          maxIntervalMs: 15000,
          timeoutMs: 1_800_000,
        },
      ],
    },
    {
      ...base,
      kind: 'wait',
      id: 'ready',
      action: 'service.get',
      with: {},
      untilDeleted: false,
      intervalMs: 1000,
      maxIntervalMs: 15000,
      timeoutMs: '${{ inputs.ready_timeout }}',
    },
    { ...base, kind: 'approve', id: 'go', message: 'go?', default: 'reject', timeoutMs: 3_600_000 },
    {
      ...base,
      kind: 'wait',
      id: 'later',
      action: 'service.get',
      with: {},
      untilDeleted: false,
      intervalMs: 1000,
      maxIntervalMs: 15000,
      timeoutMs: '${{ steps.create.output.x }}',
    },
  ],
};

test("each step with a time limit gets it on the case's clock, plus the slack", () => {
  const deadlines = stepDeadlines(definition, { ready_timeout: '10m' }, [{ step: 'go', after: '5s' }]);
  expect(deadlines.get('gone')).toEqual({
    limitMs: 1_800_000,
    budgetMs: 1_800_000 * CASE_TIME_SCALE + STEP_DEADLINE_SLACK_MS,
  });
  expect(deadlines.get('ready')).toEqual({
    limitMs: 600_000,
    budgetMs: 600_000 * CASE_TIME_SCALE + STEP_DEADLINE_SLACK_MS,
  });
  expect(deadlines.get('go')?.budgetMs).toBe(3_600_000 * CASE_TIME_SCALE + 5_000 + STEP_DEADLINE_SLACK_MS);
  // No limit, or one that reads a step's output: the flat case timeout is all it has.
  expect(deadlines.has('create')).toBe(false);
  expect(deadlines.has('later')).toBe(false);
});

test('a step still running past its budget misses its deadline; one that ended does not', () => {
  const deadlines = stepDeadlines(definition, { ready_timeout: '10m' });
  const budget = deadlines.get('gone')?.budgetMs ?? 0;
  const record = (status: StepRecord['status']): StepRecord => ({
    key: 'create/undo.gone',
    id: 'gone',
    kind: 'wait',
    status,
    startedAt: 1_000,
  });
  const progress = (step: StepRecord) => ({ steps: [step] }) as unknown as RunProgress;
  expect(missedDeadline(progress(record('running')), deadlines, 1_000 + budget)).toBeUndefined();
  const missed = missedDeadline(progress(record('running')), deadlines, 1_001 + budget);
  expect(missed).toEqual({ stepKey: 'create/undo.gone', limitMs: 1_800_000, budgetMs: budget });
  expect(missed && missedDeadlineText(missed)).toBe(
    "step create/undo.gone ran past its timeout of 30m on the case's clock (21s here)",
  );
  expect(missedDeadline(progress(record('done')), deadlines, 10 * budget)).toBeUndefined();
});
