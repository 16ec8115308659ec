// A hold action judged for the person acting (activities/hold-judge.ts): their groups from the
// worker's approvals, start rules over the inputs the action leaves, step rules over each change
// it leads to; what the workflow sends to be judged (workflows/hold-judgement.ts); and one verdict
// for a step from the verdicts for several people (workflows/policy-verdicts.ts).
import path from 'node:path';
import { holdActor, judgeHoldAction } from '../../activities/hold-judge';
import type { ApprovalSettings } from '../../activities/deps';
import type { StepPolicyVerdict } from '../../contract/policy-messages';
import { loadRunbookFile, loadRunbookText } from '../../dsl/loader';
import { holdJudgeRequest } from '../../workflows/hold-judgement';
import { strictest } from '../../workflows/policy-verdicts';
import { compile, PROD_SERVICE, TUESDAY_MORNING } from '../helpers/policy-fixtures';

const settings: ApprovalSettings = {
  keys: new Map(),
  groups: new Map([
    ['dba', ['alice']],
    ['ops', ['alice', 'bob']],
  ]),
};
const governance = compile({
  policies: [
    {
      name: 'prod-resize-needs-dba',
      when: "step.action == 'service.resize' && target.environment == 'PROD' && int(step.with.cpu_millis) > 4000",
      unless: "'dba' in starter.groups",
      effect: 'deny',
    },
    {
      name: 'big-runs-need-ops',
      when: "inputs.cpu_millis == '32000'",
      unless: "'ops' in starter.groups",
      effect: 'deny',
    },
    {
      name: 'prod-two',
      when: "target.environment == 'PROD'",
      effect: 'require-approval',
      approvals: { group: 'dba', count: 2 },
    },
  ],
});
const resize = (cpu: string) => ({
  stepKey: 'resize',
  action: 'service.resize',
  with: { project_id: 'p1', service_id: 'svc1', cpu_millis: cpu },
});
const request = (cpu: string) => ({
  runbook: 'resize-with-rollback',
  definitionHash: 'abc',
  inputs: { cpu_millis: cpu },
  changes: [resize(cpu)],
});

describe('holdActor', () => {
  test('a signed actor has the groups that list them; a claim has none', () => {
    expect(holdActor(settings, 'bob', true)).toEqual({ by: 'bob', verified: true, groups: ['ops'] });
    expect(holdActor(settings, 'alice', false)).toMatchObject({ by: 'alice', verified: false, groups: [] });
    expect(holdActor(settings, null, false)).toMatchObject({ by: null, verified: false, groups: [] });
  });
});

describe('judgeHoldAction', () => {
  const bob = holdActor(settings, 'bob', true);
  const alice = holdActor(settings, 'alice', true);

  test('a change the policies deny for the actor refuses the action, naming the rule, the actor and the step', () => {
    const refusal = judgeHoldAction(governance, bob, request('8000'), [PROD_SERVICE], TUESDAY_MORNING);
    expect(refusal).toMatchObject({ code: 'POLICY_DENIED' });
    expect(refusal?.reason).toMatch(/^policy prod-resize-needs-dba \(judged for bob, step resize\)/);
    expect(refusal?.policies.map((p) => [p.rule, p.effect, p.stepKey])).toEqual([
      ['prod-resize-needs-dba', 'deny', 'resize'],
      ['prod-two', 'require-approval', 'resize'],
    ]);
  });

  test('the same change is allowed for a DBA; an approval it needs is left to the step', () => {
    expect(
      judgeHoldAction(governance, alice, request('8000'), [PROD_SERVICE], TUESDAY_MORNING),
    ).toBeUndefined();
  });

  test('start rules are judged over the inputs the action leaves', () => {
    const unsigned = holdActor(settings, 'bob', false);
    const refusal = judgeHoldAction(
      governance,
      unsigned,
      { ...request('32000'), changes: [] },
      [],
      TUESDAY_MORNING,
    );
    expect(refusal).toMatchObject({ code: 'POLICY_DENIED' });
    expect(refusal?.reason).toMatch(/^policy big-runs-need-ops \(judged for bob, the run’s inputs\)/);
    expect(
      judgeHoldAction(governance, bob, { ...request('32000'), changes: [] }, [], TUESDAY_MORNING),
    ).toBeUndefined();
  });

  test('a window that refuses while closed refuses the action; one that waits does not', () => {
    const windows = (outside: 'wait' | 'refuse') =>
      compile({
        calendars: {
          freeze: {
            kind: 'freeze',
            timezone: 'UTC',
            from: '2025-11-01T00:00:00Z',
            until: '2025-11-10T00:00:00Z',
          },
        },
        policies: [
          {
            name: 'frozen',
            when: "target.environment == 'PROD'",
            effect: 'window',
            calendar: 'freeze',
            outside,
          },
        ],
      });
    expect(
      judgeHoldAction(windows('refuse'), alice, request('2000'), [PROD_SERVICE], TUESDAY_MORNING),
    ).toMatchObject({
      code: 'CHANGE_WINDOW_CLOSED',
    });
    expect(
      judgeHoldAction(windows('wait'), alice, request('2000'), [PROD_SERVICE], TUESDAY_MORNING),
    ).toBeUndefined();
  });
});

describe('holdJudgeRequest', () => {
  const definition = loadRunbookFile(
    path.resolve(__dirname, '..', '..', 'runbooks', 'resize-with-rollback.yaml'),
  );
  const scope = {
    inputs: { project_id: 'p1', service_id: 'zzz', cpu_millis: '2000', deadline: 1_200_000 },
    steps: {},
    vars: {},
  };
  const held = { stepKey: 'current', stepId: 'current', scope };
  const none = () => undefined;

  test('a retry of a read step with other inputs: the later resize, resolved with them', () => {
    const inputs = { ...scope.inputs, service_id: 'prod1', cpu_millis: '32000' };
    const judged = holdJudgeRequest(
      definition,
      'h',
      { kind: 'retry', held, inputs, with: {} },
      new Set(),
      none,
    );
    expect(judged.inputs).toMatchObject({ service_id: 'prod1', cpu_millis: '32000' });
    expect(judged.changes).toEqual([
      {
        stepKey: 'resize',
        action: 'service.resize',
        with: { project_id: 'p1', service_id: 'prod1', cpu_millis: '32000', memory_gbs: '128' },
      },
    ]);
  });

  test('a retry of the change itself judges it with its changed `with` first', () => {
    const atResize = { stepKey: 'resize', stepId: 'resize', scope };
    const judged = holdJudgeRequest(
      definition,
      'h',
      { kind: 'retry', held: atResize, inputs: scope.inputs, with: { cpu_millis: '16000' } },
      new Set(),
      none,
    );
    expect(judged.changes[0]).toMatchObject({
      stepKey: 'resize',
      with: { cpu_millis: '16000', service_id: 'zzz' },
    });
  });

  test("a skip's output is what later changes resolve with; a change that needs more waits for its step", () => {
    const text = `apiVersion: tideline/v1
name: redirect
description: A change whose target a read step gives.
inputs: { project_id: { type: string } }
steps:
  - { id: find, call: service.get, with: { project_id: '\${{ inputs.project_id }}', service_id: abc } }
  - id: stop
    call: service.stop
    with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ steps.find.output.service_id }}' }
  - { id: after, call: service.get, with: { project_id: '\${{ inputs.project_id }}', service_id: abc } }
  - id: later
    call: service.stop
    with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ steps.after.output.service_id }}' }
`;
    const redirect = loadRunbookText(text, 'redirect.yaml');
    const at = {
      stepKey: 'find',
      stepId: 'find',
      scope: { inputs: { project_id: 'p1' }, steps: {}, vars: {} },
    };
    const judged = holdJudgeRequest(
      redirect,
      'h',
      { kind: 'skip', held: at, output: { service_id: 'crown' } },
      new Set(),
      none,
    );
    expect(judged.changes).toEqual([
      { stepKey: 'stop', action: 'service.stop', with: { project_id: 'p1', service_id: 'crown' } },
    ]);
  });
});

describe('strictest', () => {
  const verdict = (overrides: Partial<StepPolicyVerdict>): StepPolicyVerdict => ({
    records: [],
    denied: false,
    refusedByWindow: false,
    waitUntil: null,
    waitMs: null,
    approvals: [],
    ...overrides,
  });
  const record = (rule: string, at: number) => ({
    rule,
    effect: 'deny' as const,
    message: rule,
    stepKey: 's',
    at,
  });

  test("one person's verdict is kept as it is", () => {
    const only = verdict({ records: [record('r', 1)] });
    expect(strictest([only])).toBe(only);
  });

  test('any deny denies; approvals are joined; the latest opening is waited for; records once', () => {
    const merged = strictest([
      verdict({
        records: [record('same', 1)],
        approvals: [{ rule: 'two', group: 'dba', count: 1, override: false }],
        waitUntil: 10,
        waitMs: 5,
      }),
      verdict({
        records: [record('same', 2), record('bob-only', 2)],
        denied: true,
        approvals: [{ rule: 'two', group: 'dba', count: 2, override: false }],
        waitUntil: 20,
        waitMs: 15,
      }),
    ]);
    expect(merged).toMatchObject({ denied: true, refusedByWindow: false, waitUntil: 20, waitMs: 15 });
    expect(merged.records.map((r) => r.rule)).toEqual(['same', 'bob-only']);
    expect(merged.approvals).toEqual([{ rule: 'two', group: 'dba', count: 2, override: false }]);
  });
});
