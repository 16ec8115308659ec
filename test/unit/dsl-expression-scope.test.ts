import path from 'node:path';
import { loadRunbookFile } from '../../dsl/loader';
import { expressionNeeds, narrowVariables, stepsNeeds } from '../../dsl/expression-scope';
import type { ForeachStepDefinition } from '../../dsl/definition';

const runbook = (name: string) =>
  loadRunbookFile(path.resolve(__dirname, '..', '..', 'runbooks', `${name}.yaml`));

describe('what expressions read of their scope', () => {
  test('a wait on `result` alone needs nothing of the scope', () => {
    const needs = expressionNeeds(["result.status == 'PAUSED'", "result.status in ['DELETING']"]);
    const vars = { inputs: { project_id: 'p' }, steps: { services: { output: [1, 2, 3] } }, service: {} };
    expect(narrowVariables(vars, needs)).toEqual({});
  });

  test('inputs and steps are cut to the names read, loop variables to the fields read', () => {
    const needs = expressionNeeds([
      "result.status == steps.ready.output.status && inputs.name != ''",
      'has(item.metadata) && item.metadata.environment == "DEV"',
    ]);
    const vars = {
      inputs: { name: 'a', secret: 'hunter2' },
      steps: { ready: { output: { status: 'READY' } }, services: { output: ['big'] } },
      item: { metadata: { environment: 'DEV' }, name: 'x', status: 'READY' },
      other: 1,
    };
    expect(narrowVariables(vars, needs)).toEqual({
      inputs: { name: 'a' },
      steps: { ready: { output: { status: 'READY' } } },
      item: { metadata: { environment: 'DEV' } },
    });
  });

  test('a variable read as a whole or through a computed index is kept whole', () => {
    const needs = expressionNeeds(['size(inputs) > 0', "steps[inputs.which].output == 'x'"]);
    const vars = { inputs: { a: 1, which: 'b' }, steps: { b: { output: 'x' }, c: { output: 'y' } } };
    expect(narrowVariables(vars, needs)).toEqual(vars);
  });

  test('variables bound by macros are not read from the scope', () => {
    const needs = expressionNeeds(['steps.list.output.exists(s, s.id == inputs.id)']);
    expect([...needs.keys()].sort()).toEqual(['inputs', 'steps']);
  });

  test("stop-dev-services' loop body reads the project input and the service id only", () => {
    const loop = runbook('stop-dev-services').steps.find(
      (s) => s.id === 'stop_each',
    ) as ForeachStepDefinition;
    const needs = stepsNeeds(loop.steps);
    expect(needs.get('inputs')).toEqual(new Set(['project_id']));
    expect(needs.get('service')).toEqual(new Set(['service_id']));
    expect(needs.has('steps')).toBe(false);
  });
});
