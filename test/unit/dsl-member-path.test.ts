// The direct read of plain paths (dsl/member-path.ts) gives what CEL gives: each path is compared
// with the same path in parentheses, which is not a plain path and so is evaluated by CEL.
import { evaluateExpression } from '../../dsl/expressions';
import { readMemberPath } from '../../dsl/member-path';

const variables: Record<string, unknown> = {
  inputs: { name: 'db-1', count: 3, ratio: 0.5, big: 2 ** 60, flag: false, nothing: null },
  steps: {
    create: {
      status: 'done',
      output: {
        service_id: 'svc-1',
        endpoint: { host: 'h', port: 5432 },
        tags: ['a', 'b'],
        replicas: [{ id: 'r1', count: 1 }],
        gone: undefined,
        empty: {},
      },
    },
  },
  item: 'x',
};

const paths = [
  'inputs.name',
  'inputs.count',
  'inputs.ratio',
  'inputs.big',
  'inputs.flag',
  'inputs.nothing',
  'inputs',
  'item',
  'steps.create.output.service_id',
  'steps.create.output.endpoint',
  'steps.create.output.endpoint.port',
  'steps.create.output.tags',
  'steps.create.output.replicas',
  'steps.create.output.empty',
  'steps.create.output',
];

test.each(paths)('%s reads as CEL evaluates it', (path) => {
  const direct = readMemberPath(path, variables);
  expect(direct).not.toBeUndefined();
  expect(direct).toEqual(evaluateExpression(`(${path})`, variables));
  expect(evaluateExpression(path, variables)).toEqual(direct);
});

test('a field left undefined is left out, as CEL leaves it out', () => {
  expect(readMemberPath('steps.create.output', variables)).not.toHaveProperty('gone');
});

test('the value read is a copy: changing it changes nothing in the scope', () => {
  const read = readMemberPath('steps.create.output.endpoint', variables) as { port: number };
  read.port = 1;
  expect(readMemberPath('steps.create.output.endpoint.port', variables)).toBe(5432);
});

test.each([
  ['a missing key', 'steps.create.output.missing'],
  ['a missing variable', 'nowhere.at.all'],
  ['a field of null', 'inputs.nothing.deeper'],
  ['a field of a list', 'steps.create.output.tags.length'],
  ['a field of a string', 'inputs.name.length'],
  ['a field left undefined', 'steps.create.output.gone'],
  ['a literal', 'true'],
  ['a reserved word on the way', 'inputs.in'],
  ['an operator', 'inputs.count + 1'],
  ['an index', 'steps.create.output.tags[0]'],
  ['a call', 'size(inputs.name)'],
])('%s is left to CEL (%s)', (_what, expression) => {
  expect(readMemberPath(expression, variables)).toBeUndefined();
});

test('what CEL refuses is still refused, with CEL’s message', () => {
  expect(() => evaluateExpression('steps.create.output.missing', variables)).toThrow(/missing/);
  expect(() => evaluateExpression('inputs.nothing.deeper', variables)).toThrow(/steps|inputs|deeper|null/);
});
