// The fast path for the commonest template: a plain path of names (`steps.create.output.id`,
// `inputs.name`). CEL evaluates it by converting every variable it names — `steps` holds every
// earlier step's output, whole API answers included — and most templates of a run are such
// paths. Reading the path directly gives the same value with only the value itself converted.
// Anything the direct read is not sure of (a missing key, a null or a list on the way, a name
// CEL reserves) is left to CEL, so errors and every other case read exactly as before.
import type { JsonValue } from './expressions';

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const LONGEST_PATH = 256;
/** Names CEL reads as literals or keywords, never as variables or fields. */
const RESERVED = new Set([
  ...['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function'],
  ...['if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'],
]);

/** Whether an expression is a plain path of names the direct read may answer. */
function isPlainPath(expression: string): boolean {
  return expression.length <= LONGEST_PATH && PATH.test(expression);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A JSON copy of `value` as CEL would give it back (undefined fields left out, every number a
 * number), or undefined when some part of it is not plain JSON data.
 */
function jsonCopy(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const inner of value) {
      const copied = jsonCopy(inner);
      if (copied === undefined) return undefined;
      out.push(copied);
    }
    return out;
  }
  if (!isPlainObject(value)) return undefined;
  const out: Record<string, JsonValue> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === undefined) continue;
    const copied = jsonCopy(inner);
    if (copied === undefined) return undefined;
    out[key] = copied;
  }
  return out;
}

/**
 * The value of a plain path read directly from `variables`, or undefined when the expression is
 * not one or the read is not sure (CEL then evaluates it).
 */
export function readMemberPath(
  expression: string,
  variables: Record<string, unknown>,
): JsonValue | undefined {
  if (!isPlainPath(expression)) return undefined;
  let value: unknown = variables;
  for (const name of expression.split('.')) {
    if (RESERVED.has(name) || !isPlainObject(value) || !Object.prototype.hasOwnProperty.call(value, name))
      return undefined;
    value = value[name];
    if (value === undefined) return undefined;
  }
  return jsonCopy(value);
}
