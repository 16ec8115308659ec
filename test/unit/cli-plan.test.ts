// `tideline plan`'s model and renderers: which templates resolve from inputs (never secret ones),
// the request each step would send, and the Mermaid step graph.
import { loadRunbookText } from '../../dsl/loader';
import { renderPlanMermaid } from '../../cli/output/plan-mermaid';
import { renderPlanText } from '../../cli/output/plan-text';
import { PLAIN_STYLE } from '../../cli/output/style';
import { buildPlan, PartialResolver, type PlanStep } from '../../cli/plan/build-plan';

const RUNBOOK = `
apiVersion: tideline/v1
name: plan-sample
description: A sample for plan tests.
inputs:
  project_id: { type: string }
  name: { type: string }
  password: { type: string, secret: true }
  services: { type: list, default: [] }
  careful: { type: boolean, default: true }
steps:
  - id: create
    call: service.create
    with: { project_id: '\${{ inputs.project_id }}', name: 'svc-\${{ inputs.name }}', cpu_millis: '1000', memory_gbs: '4' }
    compensate:
      id: remove
      call: service.delete
      with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ steps.create.output.service_id }}' }
  - id: secret
    call: service.updatePassword
    with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ steps.create.output.service_id }}', password: '\${{ inputs.password }}' }
  - id: ask
    if: '\${{ inputs.careful }}'
    approve: 'Continue with \${{ inputs.name }}?'
  - id: both
    parallel:
      - id: left
        steps: [{ id: nap_left, sleep: 1s }]
      - id: right
        steps: [{ id: nap_right, sleep: 2s }]
  - id: each
    foreach: '\${{ inputs.services }}'
    as: svc
    steps:
      - id: stop
        call: service.stop
        with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ svc }}' }
outputs:
  id: '\${{ steps.create.output.service_id }}'
  label: 'plan for \${{ inputs.name }}'
`;

const definition = loadRunbookText(RUNBOOK, 'plan-sample.yaml');

describe('PartialResolver', () => {
  const resolver = new PartialResolver({ project_id: 'p1', name: 'orders' });

  test('resolves templates over known inputs, keeping types', () => {
    expect(resolver.value('${{ inputs.project_id }}')).toBe('p1');
    expect(resolver.value({ a: ['x-${{ inputs.name }}'], n: '${{ size(inputs.name) }}' })).toEqual({
      a: ['x-orders'],
      n: 6,
    });
  });

  test('leaves run-time values and unknown (or secret) inputs as written', () => {
    expect(resolver.value('${{ steps.create.output.service_id }}')).toBe(
      '${{ steps.create.output.service_id }}',
    );
    expect(resolver.value('${{ inputs.password }}')).toBe('${{ inputs.password }}');
    expect(resolver.value('${{ inputs.name + steps.x.output }}')).toBe('${{ inputs.name + steps.x.output }}');
  });
});

describe('buildPlan', () => {
  const bound = { project_id: 'p1', password: 'hunter2-secret', services: ['s1', 's2'], careful: true };
  const plan = buildPlan(
    definition,
    'plan-sample.yaml',
    bound,
    new Set(['name']),
    new Set(['project_id', 'password', 'services']),
  );

  test('requests with resolved path parameters and bodies; the rest stays a template', () => {
    const [create, secret] = plan.steps;
    expect(create?.request).toEqual({
      action: 'service.create',
      method: 'POST',
      path: '/projects/p1/services',
      pending: {},
      body: { name: 'svc-${{ inputs.name }}', cpu_millis: '1000', memory_gbs: '4' },
    });
    expect(create?.compensate[0]).toMatchObject({
      key: 'create/undo.remove',
      request: {
        method: 'DELETE',
        path: '/projects/p1/services/{service_id}',
        pending: { service_id: '${{ steps.create.output.service_id }}' },
      },
    });
    expect(secret?.request?.body).toEqual({ password: '${{ inputs.password }}' });
    expect(JSON.stringify(plan)).not.toContain('hunter2-secret');
  });

  test('inputs say where their value comes from; secrets have none', () => {
    expect(plan.inputs.map((input) => [input.name, input.source, input.value])).toEqual([
      ['project_id', 'given', 'p1'],
      ['name', 'missing', undefined],
      ['password', 'given', undefined],
      ['services', 'given', ['s1', 's2']],
      ['careful', 'default', true],
    ]);
  });

  test('nested steps get the keys the run will use', () => {
    const both = plan.steps[3];
    expect(both?.branches?.map((b) => b.steps.map((s) => s.key))).toEqual([
      ['both.left.nap_left'],
      ['both.right.nap_right'],
    ]);
    expect(plan.steps[4]?.steps?.[0]).toMatchObject({
      key: 'each[*].stop',
      request: { path: '/projects/p1/services/{service_id}/stop' },
    });
    expect(plan.outputs).toEqual([
      { name: 'id', value: '${{ steps.create.output.service_id }}', secret: false },
      { name: 'label', value: 'plan for ${{ inputs.name }}', secret: false },
    ]);
  });

  test('steps nested several deep sit under their container, with the keys the run will use', () => {
    const nested = loadRunbookText(
      `
apiVersion: tideline/v1
name: plan-nested
description: Compensation inside a foreach inside a branch; a parallel inside a compensation.
steps:
  - id: first
    sleep: 1s
    compensate:
      - { id: undo_a, sleep: 1s }
      - id: undo_b
        parallel:
          - id: x
            steps: [{ id: xs, sleep: 1s }]
  - id: both
    parallel:
      - id: left
        steps:
          - id: each
            foreach: '\${{ [1, 2] }}'
            steps:
              - { id: stop, sleep: 1s, compensate: { id: back, sleep: 1s } }
              - id: inner
                parallel:
                  - id: i1
                    steps: [{ id: n1, sleep: 1s }]
      - id: right
        steps: [{ id: nap, sleep: 2s }]
`,
      'plan-nested.yaml',
    );
    const keys = (steps: PlanStep[]): unknown[] =>
      steps.map((step) => [
        step.key,
        ...(step.compensate.length > 0 ? [{ undo: keys(step.compensate) }] : []),
        ...(step.branches ?? []).map((branch) => ({ [branch.id]: keys(branch.steps) })),
        ...(step.steps !== undefined ? [{ body: keys(step.steps) }] : []),
      ]);
    expect(keys(buildPlan(nested, 'plan-nested.yaml', {}, new Set(), new Set()).steps)).toEqual([
      [
        'first',
        { undo: [['first/undo.undo_a'], ['first/undo.undo_b', { x: [['first/undo.undo_b.x.xs']] }]] },
      ],
      [
        'both',
        {
          left: [
            [
              'both.left.each',
              {
                body: [
                  ['both.left.each[*].stop', { undo: [['both.left.each[*].stop/undo.back']] }],
                  ['both.left.each[*].inner', { i1: [['both.left.each[*].inner.i1.n1']] }],
                ],
              },
            ],
          ],
        },
        { right: [['both.right.nap']] },
      ],
    ]);
  });

  test('text names the missing inputs and masks secret ones', () => {
    const text = renderPlanText(plan, PLAIN_STYLE);
    expect(text).toMatch(/password +•••••• \(secret\)/);
    expect(text).toContain('only if inputs.careful');
    expect(text).toContain('inputs still needed to run: name');
    expect(text).not.toContain('hunter2');
  });

  test("a foreach's error budget and ramp show beside its concurrency", () => {
    const budgeted = loadRunbookText(
      RUNBOOK.replace(
        '    as: svc\n',
        "    as: svc\n    concurrency: 8\n    maxErrors: '10%'\n    onMaxErrors: cancel\n    ramp: { start: 2 }\n",
      ),
      'plan-sample.yaml',
    );
    const each = buildPlan(budgeted, 'plan-sample.yaml', bound, new Set(['name']), new Set()).steps[4];
    expect(each).toMatchObject({ maxErrors: '10%', onMaxErrors: 'cancel', ramp: { start: 2, factor: 2 } });
    const text = renderPlanText(
      buildPlan(budgeted, 'plan-sample.yaml', bound, new Set(['name']), new Set()),
      PLAIN_STYLE,
    );
    expect(text).toContain(
      '(8 at a time, ramp from 2, ×2 while items succeed, maxErrors 10% of the items: more failed items stop new starts and cancel those in flight)',
    );
    expect(renderPlanText(plan, PLAIN_STYLE)).toContain('(1 at a time)');
  });

  test('mermaid: a chain with a labelled condition, a fork and join, a loop, and undo edges', () => {
    const graph = renderPlanMermaid(plan);
    const lines = graph.trim().split('\n');
    expect(lines[0]).toBe('flowchart TD');
    expect(graph).toContain('-->|"if inputs.careful"|');
    expect(graph).toMatch(/n\d+ -->\|"left"\| n\d+/);
    expect(graph).toMatch(/n\d+ -->\|"right"\| n\d+/);
    expect(graph).toMatch(/n\d+\(\("all branches done"\)\)/);
    expect(graph).toMatch(/n\d+ -\.->\|"next"\| n\d+/);
    expect(graph).toMatch(/n\d+ -->\|"all done"\| n\d+/);
    expect(graph).toMatch(/n\d+ -\.->\|"undo"\| n\d+/);
    // Every node referenced by an edge is declared.
    const declared = new Set(lines.map((line) => /^ {2}(n\d+)[[({]/.exec(line)?.[1]).filter(Boolean));
    for (const line of lines) {
      for (const id of line.match(/\bn\d+\b/g) ?? []) expect(declared.has(id)).toBe(true);
    }
  });
});
