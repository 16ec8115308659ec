// The mutants `tideline test --mutate` derives from a runbook: each operator where it applies
// (a compensation's call swapped for a sibling operation of the same resource, a step dropped, a
// literal changed, an input reference swapped for the next input of its type, an `if` negated, an
// approval's default flipped, a wait's condition weakened), only mutants the loader accepts, ids
// that name the mutation (the same on every derivation), and a diff of the lines that changed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deriveMutants, type Derivation } from '../../rehearsal/mutation/derive-mutants';
import { mutantDiff } from '../../rehearsal/mutation/mutant-diff';

const RUNBOOK = `apiVersion: tideline/v1
name: mutable
description: A runbook with one of each mutation site.
inputs:
  project_id: { type: string }
  name: { type: string }
  tag: { type: boolean, default: false }
steps:
  - id: create
    call: service.create
    with: { project_id: '\${{ inputs.project_id }}', name: '\${{ inputs.name }}', addons: [time-series] }
    compensate:
      id: delete
      call: service.delete
      with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ steps.create.output.service_id }}' }
  - id: ready
    wait: service.get
    with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ steps.create.output.service_id }}' }
    until: "\${{ result.status == 'READY' }}"
    timeout: 10m
  - id: go
    approve: Tag it?
    timeout: 1h
    default: reject
  - id: prod
    if: '\${{ inputs.tag }}'
    call: service.setEnvironment
    with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ steps.create.output.service_id }}', environment: PROD }
`;

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-mutants-'));
  file = path.join(dir, 'mutable.yaml');
  writeFileSync(file, RUNBOOK);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let first: Derivation | undefined;
function derived(): Derivation {
  first ??= deriveMutants(RUNBOOK, file);
  if (first === undefined) throw new Error('the runbook does not load');
  return first;
}

test('each operator gives its mutants, and a mutant the loader refuses is left out', () => {
  const ids = derived().mutants.map((m) => m.id);
  expect(ids).toEqual(
    expect.arrayContaining([
      'drop-step:delete',
      'swap-call:delete=service.stop',
      'swap-call:delete=service.start',
      'swap-input:create:with.project_id:inputs.project_id=inputs.name',
      'swap-input:create:with.name:inputs.name=inputs.project_id',
      'change-literal:create:with.addons=[]',
      'change-literal:prod:with.environment="DEV"',
      'weaken-wait:ready=true',
      'flip-default:go=approve',
      'negate-if:prod',
      'drop-step:ready',
      'drop-step:go',
      'drop-step:prod',
    ]),
  );
  // Later steps read create's output: without it the runbook does not validate.
  expect(ids).not.toContain('drop-step:create');
  expect(derived().refused).toBeGreaterThan(0);
  // Only a compensation's call is swapped; reads are never a swap's target.
  expect(ids.filter((id) => id.startsWith('swap-call:create'))).toEqual([]);
  expect(ids).not.toContain('swap-call:delete=service.get');
  // A boolean input has no other boolean input to be swapped for.
  expect(ids.filter((id) => id.includes('inputs.tag'))).toEqual([]);
  expect(new Set(ids).size).toBe(ids.length);
});

test('ids name the mutation, so every derivation gives the same ones', () => {
  expect(deriveMutants(RUNBOOK, file)?.mutants.map((m) => m.id)).toEqual(derived().mutants.map((m) => m.id));
});

test('a mutant is the loaded runbook with the one change, and its diff shows that change', () => {
  const stop = derived().mutants.find((m) => m.id === 'swap-call:delete=service.stop');
  const compensation = stop?.definition.steps[0]?.compensate[0];
  expect(compensation).toMatchObject({ kind: 'call', action: 'service.stop' });
  expect(stop?.diff.lines).toEqual(['-       call: service.delete', '+       call: service.stop']);
  const negated = derived().mutants.find((m) => m.id === 'negate-if:prod');
  expect(negated?.definition.steps[3]?.if).toBe('!(inputs.tag)');
  const flipped = derived().mutants.find((m) => m.id === 'flip-default:go=approve');
  expect(flipped?.definition.steps[2]).toMatchObject({ kind: 'approve', default: 'approve' });
});

test('a diff shows only the lines that differ, and counts what it leaves out', () => {
  expect(mutantDiff('a\nb\nc\n', 'a\nB\nc\n')).toEqual({ line: 2, lines: ['- b', '+ B'] });
  const long = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n');
  const diff = mutantDiff(`head\n${long}\ntail`, 'head\ntail');
  expect(diff.lines).toHaveLength(9);
  expect(diff.lines.at(-1)).toBe('- … (4 more lines)');
});
