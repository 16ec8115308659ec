// What an approval with approvers guards (workflows/approval-plan.ts `approvalPlan`): the changing
// steps after it, each with its `with` resolved from the run's variables as far as they go, what
// comes from a secret masked (by source, never by value), an operator's retry changes applied; for
// a step policy's approval only its own step, for a start policy's the whole run.
import path from 'node:path';
import type { JsonValue } from '../../dsl/expressions';
import { loadRunbookText } from '../../dsl/loader';
import { MASKED } from '../../contract/approval-messages';
import { approvalPlan, samePlan } from '../../workflows/approval-plan';

// Placed in runbooks/ so that the child runbook resolves to the repository's own file.
const AT = path.resolve(__dirname, '..', '..', 'runbooks', 'approval-plan-under-test.yaml');
const service = "project_id: '${{ inputs.project_id }}'\n      service_id: '${{ inputs.service_id }}'";

const definition = loadRunbookText(
  `apiVersion: tideline/v1
name: plan-demo
description: Changes before and after an approval.
inputs:
  project_id: { type: string }
  service_id: { type: string }
  cpu_millis: { type: string }
  label: { type: string, secret: true }
  password: { type: string, secret: true }
steps:
  - id: current
    call: service.get
    with:
      ${service}
  - id: early
    call: service.start
    with:
      ${service}
  - id: sign_off
    approve: Go ahead?
    approvers: [alice]
  - id: look
    call: service.get
    with:
      ${service}
  - id: resize
    call: service.resize
    with:
      ${service}
      cpu_millis: '\${{ inputs.cpu_millis }}'
      memory_gbs: '\${{ string(steps.look.output.resources[0].spec.memory_gbs) }}'
  - id: rename
    call: service.rename
    with:
      ${service}
      name: '\${{ inputs.label }}'
  - id: set_password
    call: service.updatePassword
    with:
      ${service}
      password: '\${{ inputs.password }}'
  - id: child
    runbook: ./resize-with-rollback.yaml
    with:
      ${service}
      cpu_millis: '\${{ inputs.cpu_millis }}'
`,
  AT,
);

const HASH = 'f'.repeat(64);
const inputs = {
  project_id: 'p1',
  service_id: 's1',
  cpu_millis: '4000',
  label: 'hidden-name',
  password: 'hunter2-hunter2',
};
const vars = { inputs, steps: { current: { output: { status: 'READY' } } } };
/** The secret inputs, by name. */
const secrets = new Set(['label', 'password']);
const none = () => undefined;
const plan = (
  approvalId = 'sign_off',
  withChanges: (stepId: string) => Record<string, JsonValue> | undefined = none,
  scope: Record<string, unknown> = vars,
) => approvalPlan(definition, approvalId, HASH, scope, secrets, withChanges);
const ids = { project_id: 'p1', service_id: 's1' };

describe('approvalPlan', () => {
  test('the changes after the approval: calls that are not reads, and child runbooks', () => {
    const result = plan();
    expect(result.definitionHash).toBe(HASH);
    expect(result.changes.map((change) => [change.stepKey, change.action])).toEqual([
      ['resize', 'service.resize'],
      ['rename', 'service.rename'],
      ['set_password', 'service.updatePassword'],
      ['child', 'runbook resize-with-rollback'],
    ]);
  });

  test('`with` is resolved from the variables; a field needing a later output keeps its text', () => {
    const [resize, , , child] = plan().changes;
    expect(resize?.with).toEqual({
      ...ids,
      cpu_millis: '4000',
      memory_gbs: '${{ string(steps.look.output.resources[0].spec.memory_gbs) }}',
    });
    expect(child?.with).toEqual({ ...ids, cpu_millis: '4000' });
    // Once the later step has answered, the field resolves.
    const later = {
      ...vars,
      steps: { ...vars.steps, look: { output: { resources: [{ spec: { memory_gbs: 16 } }] } } },
    };
    expect(plan('sign_off', none, later).changes[0]?.with.memory_gbs).toBe('16');
  });

  test('a secret field name and a secret input value are masked', () => {
    const [, rename, setPassword] = plan().changes;
    expect(rename?.with).toEqual({ ...ids, name: MASKED });
    expect(setPassword?.with).toEqual({ ...ids, password: MASKED });
    expect(MASKED).toBe('(secret)');
    expect(JSON.stringify(plan())).not.toMatch(/hidden-name|hunter2/);
  });

  test('a secret input embedded in a longer text, or transformed, masks the whole field', () => {
    const changes = (stepId: string): Record<string, JsonValue> | undefined =>
      stepId === 'rename'
        ? { name: 'svc-${{ inputs.label }}-2' }
        : stepId === 'resize'
          ? { cpu_millis: '${{ inputs.password.upperAscii() }}' }
          : undefined;
    const result = plan('sign_off', changes);
    expect(result.changes[1]?.with.name).toBe(MASKED);
    // A transformation of a secret is made from its stand-in, never from the secret itself.
    expect(JSON.stringify(result)).not.toMatch(/hidden-name|hunter2|HUNTER2/i);
  });

  test('a target whose id equals a secret input value is shown: masking goes by source', () => {
    const crown = { ...inputs, service_id: 'crown-db', password: 'crown-db' };
    const result = plan('sign_off', none, { ...vars, inputs: crown });
    expect(result.changes[0]?.with.service_id).toBe('crown-db');
    expect(result.changes[2]?.with).toEqual({ ...ids, service_id: 'crown-db', password: MASKED });
  });

  test('secret-named fields of a step output are masked where a later change uses them', () => {
    const later = {
      ...vars,
      steps: {
        ...vars.steps,
        look: { output: { resources: [{ spec: { memory_gbs: 16 } }], initial_password: 'pw-1' } },
      },
    };
    const changes = (stepId: string): Record<string, JsonValue> | undefined =>
      stepId === 'rename' ? { name: 'n-${{ steps.look.output.initial_password }}' } : undefined;
    const result = plan('sign_off', changes, later);
    expect(result.changes[1]?.with.name).toBe(MASKED);
    expect(JSON.stringify(result)).not.toContain('pw-1');
  });

  test("an operator's `with` changes replace the written fields, still masked", () => {
    const changes = (stepId: string): Record<string, JsonValue> | undefined =>
      stepId === 'resize'
        ? { cpu_millis: '8000', memory_gbs: '32' }
        : stepId === 'rename'
          ? { name: '${{ inputs.label }}' }
          : undefined;
    const result = plan('sign_off', changes);
    expect(result.changes[0]?.with).toEqual({ ...ids, cpu_millis: '8000', memory_gbs: '32' });
    expect(result.changes[1]?.with).toEqual({ ...ids, name: MASKED });
    expect(samePlan(result, plan())).toBe(false);
    expect(samePlan(plan(), plan())).toBe(true);
  });

  test("a policy's approval guards only the step it was asked for", () => {
    const result = plan('resize.policy.rule-x');
    expect(result.changes.map((change) => change.stepKey)).toEqual(['resize']);
    expect(plan('child.policy.prod-needs-two').changes.map((change) => change.action)).toEqual([
      'runbook resize-with-rollback',
    ]);
  });

  test("a start policy's approval guards every change of the run", () => {
    expect(plan('(start).policy.rule-x').changes.map((change) => change.stepKey)).toEqual([
      'early',
      'resize',
      'rename',
      'set_password',
      'child',
    ]);
  });

  test('an approval that is not in the definition guards nothing', () => {
    expect(plan('nowhere').changes).toEqual([]);
    // A step id that only starts like another's is not that step.
    expect(plan('resizer.policy.rule-x').changes).toEqual([]);
  });

  test('changes inside a foreach after the approval are listed', () => {
    const nested = loadRunbookText(
      `apiVersion: tideline/v1
name: nested
description: A fleet after an approval.
inputs:
  project_id: { type: string }
  services: { type: list }
steps:
  - id: ok
    approve: Stop them all?
    approvers: [alice]
  - id: each
    foreach: '\${{ inputs.services }}'
    steps:
      - id: stop
        call: service.stop
        with:
          project_id: '\${{ inputs.project_id }}'
          service_id: '\${{ item }}'
`,
      AT,
    );
    const result = approvalPlan(
      nested,
      'ok',
      HASH,
      { inputs: { project_id: 'p1', services: ['a', 'b'] }, steps: {} },
      new Set(),
      none,
    );
    expect(result.changes).toEqual([
      { stepKey: 'stop', action: 'service.stop', with: { project_id: 'p1', service_id: '${{ item }}' } },
    ]);
  });
});
