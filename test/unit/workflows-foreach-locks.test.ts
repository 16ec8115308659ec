import path from 'node:path';
import type { ForeachStepDefinition } from '../../dsl/definition';
import { loadRunbookFile } from '../../dsl/loader';
import { iterationLockKeys } from '../../workflows/foreach-locks';

const loop = (file: string, id: string) =>
  loadRunbookFile(file).steps.find((s) => s.id === id) as ForeachStepDefinition;
const stopEach = loop(path.resolve(__dirname, '..', '..', 'runbooks', 'stop-dev-services.yaml'), 'stop_each');
const pairs = loop(path.resolve(__dirname, '..', 'fixtures', 'fleet', 'tag-pairs.yaml'), 'each');

describe('per-iteration lock keys', () => {
  test("stop-dev-services locks each item's service (stop and its undo name the same one)", () => {
    const vars = { inputs: { project_id: 'p1' }, steps: {}, service: { service_id: 's9', name: 'x' } };
    expect(iterationLockKeys(stopEach.steps, vars, [])).toEqual(['service/p1/s9']);
  });

  test('keys come sorted, whatever order the steps name them in', () => {
    const vars = { inputs: { project_id: 'p1' }, steps: {}, pair: { a: 'zz', b: 'aa' } };
    expect(iterationLockKeys(pairs.steps, vars, [])).toEqual(['service/p1/aa', 'service/p1/zz']);
  });

  test('services the run holds already are not locked again', () => {
    const vars = { inputs: { project_id: 'p1' }, steps: {}, pair: { a: 'zz', b: 'aa' } };
    expect(iterationLockKeys(pairs.steps, vars, ['service/p1/zz'])).toEqual(['service/p1/aa']);
  });

  test('a service whose project or id does not resolve before the iteration is not locked', () => {
    const vars = { inputs: {}, steps: {}, service: { service_id: 's9' } };
    expect(iterationLockKeys(stopEach.steps, vars, [])).toEqual([]);
  });
});
