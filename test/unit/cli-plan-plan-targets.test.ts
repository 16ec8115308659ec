// `tideline plan` and a foreach over `targets`: the selector with input values filled in, and with
// --resolve-targets (here a stand-in lister) exactly the services the run's filter would pick, or
// `unresolved` (and no listing) when the selector needs values known only at run time.
import { renderPlanText } from '../../cli/output/plan-text';
import { PLAIN_STYLE } from '../../cli/output/style';
import { buildPlan, knownInputs, type Plan, type PlanStep } from '../../cli/plan/build-plan';
import { resolvePlanTargets } from '../../cli/plan/plan-targets';
import type { JsonValue } from '../../dsl/expressions';
import { loadRunbookText } from '../../dsl/loader';

const RUNBOOK = `
apiVersion: tideline/v1
name: plan-targets
description: A sample for targets plans.
inputs:
  project_id: { type: string }
  team: { type: string }
  token: { type: string, secret: true }
steps:
  - id: each
    foreach:
      targets: { project_id: '\${{ inputs.project_id }}', name: '\${{ inputs.team }}-*', status: READY, hasReadReplicas: false }
    as: svc
    steps:
      - id: stop
        call: service.stop
        with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ svc.service_id }}' }
      - id: forks
        foreach:
          targets: { project_id: '\${{ inputs.project_id }}', forkOf: '\${{ svc.service_id }}' }
        steps:
          - id: stop_fork
            call: service.stop
            with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ item.service_id }}' }
  - id: secret_each
    foreach:
      targets: { project_id: p1, name: '\${{ inputs.token }}' }
    steps:
      - id: touch
        call: service.get
        with: { project_id: p1, service_id: '\${{ item.service_id }}' }
`;

const LISTING: JsonValue[] = [
  {
    service_id: 's1',
    name: 'shop-api',
    status: 'READY',
    region_code: 'us-east-1',
    metadata: { environment: 'DEV' },
  },
  {
    service_id: 's2',
    name: 'shop-web',
    status: 'PAUSED',
    region_code: 'us-east-1',
    metadata: { environment: 'DEV' },
  },
  { service_id: 's3', name: 'ads-api', status: 'READY' },
];

function planFor(inputs: Record<string, JsonValue>): { plan: Plan; known: Record<string, JsonValue> } {
  const definition = loadRunbookText(RUNBOOK, 'plan-targets.yaml');
  const bound = { token: 's3cret', ...inputs };
  const missing = new Set(['project_id', 'team'].filter((name) => !(name in inputs)));
  const plan = buildPlan(
    definition,
    'plan-targets.yaml',
    bound,
    missing,
    new Set([...Object.keys(inputs), 'token']),
  );
  return { plan, known: knownInputs(definition, bound, missing) };
}

const step = (steps: PlanStep[], id: string): PlanStep => {
  for (const one of steps) {
    if (one.id === id) return one;
    const inner = step(one.steps ?? [], id);
    if (inner !== undefined) return inner;
  }
  return undefined as unknown as PlanStep;
};

test('without resolving, the plan shows the selector with the inputs filled in', () => {
  const { plan } = planFor({ project_id: 'p1', team: 'shop' });
  expect(plan.steps.map((one) => one.id)).toEqual([
    'each-targets',
    'each',
    'secret_each-targets',
    'secret_each',
  ]);
  expect(step(plan.steps, 'each').targets).toEqual({
    listStepId: 'each-targets',
    selector: { project_id: 'p1', name: ['shop-*'], status: ['READY'], hasReadReplicas: false },
  });
  // A secret input stays a template.
  expect(step(plan.steps, 'secret_each').targets?.selector.name).toEqual(['${{ inputs.token }}']);
  const text = renderPlanText(plan, PLAIN_STYLE);
  expect(text).toContain(
    'foreach svc in the services of project p1 where name shop-*, status READY, hasReadReplicas false (1 at a time)',
  );
  expect(text).not.toContain('s3cret');
});

test('resolving lists each project once and keeps exactly what the run would pick', async () => {
  const { plan, known } = planFor({ project_id: 'p1', team: 'shop' });
  const listed: string[] = [];
  await resolvePlanTargets(plan, known, async (project) => {
    listed.push(project);
    return LISTING;
  });
  expect(listed).toEqual(['p1']);
  expect(step(plan.steps, 'each').targets?.services).toEqual([
    { service_id: 's1', name: 'shop-api', environment: 'DEV', status: 'READY', region: 'us-east-1' },
  ]);
  // Inside a loop (the loop variable) or reading a secret input: known only at run time.
  expect(step(plan.steps, 'forks').targets).toMatchObject({
    unresolved: expect.stringContaining('run time'),
  });
  expect(step(plan.steps, 'secret_each').targets).toMatchObject({
    unresolved: expect.stringContaining('run time'),
  });
  expect(step(plan.steps, 'secret_each').targets?.services).toBeUndefined();
  const text = renderPlanText(plan, PLAIN_STYLE);
  expect(text).toContain('— only service.list was called');
  expect(text).toMatch(
    /targets now \(1\):\n\s+service_id\s+name\s+environment\s+status\s+region\n\s+s1\s+shop-api\s+DEV\s+READY\s+us-east-1\n/,
  );
});

test('selectors that read a missing or a secret input list nothing', async () => {
  const { plan, known } = planFor({ team: 'shop' });
  const listed: string[] = [];
  await resolvePlanTargets(plan, known, async (project) => {
    listed.push(project);
    return LISTING;
  });
  expect(listed).toEqual([]);
  expect(step(plan.steps, 'each').targets?.unresolved).toBe(
    'the selector depends on values known only at run time',
  );
});
