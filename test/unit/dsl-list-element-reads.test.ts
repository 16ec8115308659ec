// What expressions read of each element of a foreach's output (dsl/list-element-reads.ts): only
// what they provably read, and the whole list for any use the analysis does not understand.
import path from 'node:path';
import { elementReads, foreachOutputReads, type ElementReads } from '../../dsl/list-element-reads';
import { loadRunbookFile } from '../../dsl/loader';

const LIST = ['each', 'output'];

function plain(reads: ElementReads): unknown {
  if (reads === 'whole') return 'whole';
  return Object.fromEntries(
    [...reads].map(([field, subs]) => [field, subs === 'whole' ? 'whole' : [...subs].sort()]),
  );
}

test.each([
  ['steps.each.output.map(r, r.paused.service_id)', { paused: ['service_id'] }],
  [
    'steps.each.output.filter(r, r.stop.status == "PAUSED").map(r, r.paused.name)',
    { stop: ['status'], paused: ['name'] },
  ],
  ['steps.each.output.all(r, r.paused.status == "PAUSED") && steps.other.output.x', { paused: ['status'] }],
  ['steps.each.output[0].paused.service_id', { paused: ['service_id'] }],
  ['steps.each.output.map(r, r.paused)', { paused: 'whole' }],
  ['steps.each.output.map(r, r.paused).map(p, p.service_id)', { paused: 'whole' }],
  ['steps.each.output.exists(r, r.paused[inputs.k] == 1)', { paused: 'whole' }],
  ['steps.each.status == "done" && steps.list.output.size() > 0', {}],
  ['inputs.each.output.size() > 0', {}],
])('%s reads %j of each element', (expression, expected) => {
  expect(plain(elementReads(expression, 'steps', LIST))).toEqual(expected);
});

test.each([
  'size(steps.each.output)',
  'steps.each.output.size() > 0',
  'steps.each.output',
  'steps.each',
  'steps',
  'steps[inputs.name].output',
  'steps.each.output.map(r, r)',
  'steps.each.output.map(r, r[inputs.k])',
  '"x" in steps.each.output',
  'cel.bind(all, steps.each.output, all.map(r, r.paused.service_id))',
])('%s reads each element whole (or the list as a list)', (expression) => {
  expect(elementReads(expression, 'steps', LIST)).toBe('whole');
});

test('a bound name shadowing an element variable is not an element', () => {
  expect(plain(elementReads('steps.each.output.map(r, cel.bind(r, 1, r + 1))', 'steps', LIST))).toEqual({});
});

test("stop-dev-services reads only the paused step's service_id of each iteration", () => {
  const definition = loadRunbookFile(path.resolve(__dirname, '../../runbooks/stop-dev-services.yaml'));
  expect(plain(foreachOutputReads(definition, 'stop_each'))).toEqual({ paused: ['service_id'] });
});
