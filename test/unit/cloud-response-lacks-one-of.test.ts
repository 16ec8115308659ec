// When a list's raw text proves that no element holds a string (cloud/response.ts
// answerLacksOneOf): only for a JSON array with no escape sequence, and only for a value whose
// quoted form is absent.
import { answerLacksOneOf } from '../../cloud/response';

test('a quoted value absent from an array without escapes is in no element', () => {
  const text = ' [{"name":"orders","region_code":"us-east-1"}] \n';
  expect(answerLacksOneOf(text, ['billing'])).toBe(true);
  expect(answerLacksOneOf(text, ['order'])).toBe(true);
  expect(answerLacksOneOf(text, ['orders'])).toBe(false);
  // A key of the same spelling only costs a parse.
  expect(answerLacksOneOf(text, ['name'])).toBe(false);
  expect(answerLacksOneOf('[]', ['orders'])).toBe(true);
  // Several values: one absent is enough; none given proves nothing.
  expect(answerLacksOneOf(text, ['orders', 'eu-west-1'])).toBe(true);
  expect(answerLacksOneOf(text, ['orders', 'us-east-1'])).toBe(false);
  expect(answerLacksOneOf(text, [])).toBe(false);
});

test('an escape anywhere, or a body that is not an array, proves nothing', () => {
  expect(answerLacksOneOf('[{"name":"b\\u0069lling"}]', ['billing'])).toBe(false);
  expect(answerLacksOneOf('[{"name":"a\\/b"}]', ['a/b'])).toBe(false);
  expect(answerLacksOneOf('{"items":[]}', ['orders'])).toBe(false);
  expect(answerLacksOneOf('<html>', ['orders'])).toBe(false);
});

test('a value that needs an escape is in no element of a text without escapes', () => {
  expect(answerLacksOneOf('[{"name":"say hi"}]', ['say "hi"'])).toBe(true);
});
