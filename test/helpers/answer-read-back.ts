// What tideline's client must make of an answer the document admits: every field the document
// lists that came non-null reaches the parsed result unchanged (an unknown enum value included),
// both names of a renamed field carry the value (the current name's when both came), null and
// absent fields stay absent (or null), and fields no model knows are dropped.
import { formatPath } from '../../cloud/response';
import { UNKNOWN_FIELD_PREFIX } from './answer-arbitrary';
import type { OasSchema } from './openapi-schema';

type Path = (string | number)[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function present(value: unknown): unknown {
  return value === null ? undefined : value;
}

function fail(path: Path, what: string): never {
  throw new Error(`${formatPath(path)}: ${what}`);
}

/** `deprecated name → current name` for the properties marked `x-replaced-by`. */
function renamedFields(schema: OasSchema): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    const current = sub['x-replaced-by'];
    if (current !== undefined) {
      pairs.set(name, current);
      pairs.set(current, current);
    }
  }
  return pairs;
}

/** Throws, naming the JSON path, when `read` is not what the client should make of `sent`. */
export function expectReadBack(sent: unknown, read: unknown, schema: OasSchema, path: Path = []): void {
  if (Array.isArray(sent)) {
    if (!Array.isArray(read) || read.length !== sent.length) fail(path, 'the list was not read item by item');
    sent.forEach((item, index) => expectReadBack(item, read[index], schema.items ?? {}, [...path, index]));
    return;
  }
  if (!isObject(sent)) {
    if (read !== sent) fail(path, 'the value changed on reading');
    return;
  }
  // A free-form object (no properties listed) is the model's business.
  if (schema.properties === undefined) return;
  if (!isObject(read)) fail(path, 'the object was not read as one');
  const renamed = renamedFields(schema);
  for (const [name, sub] of Object.entries(schema.properties)) {
    if (sub['x-unknown-field'] === true) {
      if (name in read) fail([...path, name], 'a field no client knows came through');
      continue;
    }
    const current = renamed.get(name);
    const deprecated = [...renamed].find(([old, now]) => now === current && old !== now)?.[0];
    const expected =
      current !== undefined && deprecated !== undefined
        ? (present(sent[current]) ?? present(sent[deprecated]))
        : present(sent[name]);
    if (expected === undefined) {
      if (present(read[name]) !== undefined) fail([...path, name], 'absent or null in the answer, yet read');
      continue;
    }
    if (read[name] === undefined) fail([...path, name], 'dropped on reading');
    expectReadBack(expected, read[name], sub, [...path, name]);
  }
  for (const key of Object.keys(sent)) {
    if (key.startsWith(UNKNOWN_FIELD_PREFIX) && key in read)
      fail([...path, key], 'an unknown field was kept');
  }
}
