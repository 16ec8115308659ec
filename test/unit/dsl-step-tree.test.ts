// The one step-tree walk (dsl/step-tree.ts): document order, each step's context, and what a
// caller's `descend` leaves out (locks skip foreach bodies; held-step lookup skips compensations).
import { loadRunbookText } from '../../dsl/loader';
import { stepTree } from '../../dsl/step-tree';

const TEXT = `apiVersion: tideline/v1
name: t
description: t
inputs:
  ids: { type: list }
steps:
  - id: first
    call: service.get
    with: { project_id: p, service_id: s }
    compensate:
      - id: undo
        call: service.get
        with: { project_id: p, service_id: s }
  - id: both
    parallel:
      - id: left
        steps:
          - id: l1
            call: service.get
            with: { project_id: p, service_id: s }
      - id: right
        steps:
          - id: r1
            call: service.get
            with: { project_id: p, service_id: s }
  - id: each
    foreach: '\${{ inputs.ids }}'
    as: id
    steps:
      - id: inner
        call: service.get
        with: { project_id: p, service_id: '\${{ id }}' }
`;

const steps = () => loadRunbookText(TEXT, 't.yaml').steps;

test('visits every step in document order, with its parent, containers and depth', () => {
  const placed = stepTree(steps());
  expect(placed.map(({ step }) => step.id)).toEqual(['first', 'undo', 'both', 'l1', 'r1', 'each', 'inner']);
  const byId = new Map(placed.map((p) => [p.step.id, p]));
  expect(byId.get('undo')).toMatchObject({ depth: 1, frames: [{ type: 'compensate', owner: 'first' }] });
  expect(byId.get('undo')?.parent?.id).toBe('first');
  expect(byId.get('r1')).toMatchObject({
    depth: 1,
    path: ['steps', 1, 'branches', 1, 'steps', 0],
    frames: [{ type: 'branch', parallel: 'both', branch: 'right' }],
  });
  expect(byId.get('inner')?.frames).toEqual([{ type: 'foreach', id: 'each', variable: 'id' }]);
  expect(byId.get('first')).toMatchObject({ depth: 0, parent: undefined, frames: [] });
});

test('leaves out what the caller does not descend into', () => {
  const ids = (descend: Parameters<typeof stepTree>[1]) =>
    stepTree(steps(), descend).map(({ step }) => step.id);
  expect(ids({ foreach: false })).toEqual(['first', 'undo', 'both', 'l1', 'r1', 'each']);
  expect(ids({ compensate: false })).toEqual(['first', 'both', 'l1', 'r1', 'each', 'inner']);
  expect(ids({ branches: false, foreach: false, compensate: false })).toEqual(['first', 'both', 'each']);
});
