// When a list's raw text proves that no element holds a string (cloud/response.ts
// answerLacksString): only for a JSON array with no escape sequence, and only for a value whose
// quoted form is absent.
import { answerLacksString } from '../../cloud/response';

test('a quoted value absent from an array without escapes is in no element', () => {
  const text = ' [{"name":"orders","region_code":"us-east-1"}] \n';
  expect(answerLacksString(text, 'billing')).toBe(true);
  expect(answerLacksString(text, 'order')).toBe(true);
  expect(answerLacksString(text, 'orders')).toBe(false);
  // A key of the same spelling only costs a parse.
  expect(answerLacksString(text, 'name')).toBe(false);
  expect(answerLacksString('[]', 'orders')).toBe(true);
});

test('an escape anywhere, or a body that is not an array, proves nothing', () => {
  expect(answerLacksString('[{"name":"b\\u0069lling"}]', 'billing')).toBe(false);
  expect(answerLacksString('[{"name":"a\\/b"}]', 'a/b')).toBe(false);
  expect(answerLacksString('{"items":[]}', 'orders')).toBe(false);
  expect(answerLacksString('<html>', 'orders')).toBe(false);
});

test('a value that needs an escape is in no element of a text without escapes', () => {
  expect(answerLacksString('[{"name":"say hi"}]', 'say "hi"')).toBe(true);
});
