// "Did you mean …?": the closest candidate within a typo's reach, a swap of neighbouring letters
// counting as one edit.
import { closestName, suggestionHint } from '../../dsl/suggest';

const COMMANDS = ['init', 'list', 'plan', 'run', 'status', 'test', 'validate'];

test.each([
  ['lsit', 'list'],
  ['stauts', 'status'],
  ['valdiate', 'validate'],
  ['tset', 'test'],
  ['ru', 'run'],
  ['Status', 'status'],
])('%s → %s', (typo, meant) => {
  expect(closestName(typo, COMMANDS)).toBe(meant);
});

test('nothing close enough gives no suggestion', () => {
  expect(closestName('deploy', COMMANDS)).toBeUndefined();
  expect(suggestionHint('deploy', ['a', 'b'], 'steps')).toBe('steps: a, b');
  expect(suggestionHint('x', [], 'steps')).toBe('there are no steps');
});
