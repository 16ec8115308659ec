// A state rule's expectation, compiled: parsed and type-checked once against the service answer's
// type (`service` is one element of service.list's answer), evaluated per service later. A rule
// that cannot be evaluated for a service (it reads a field the service lacks) is broken for it:
// the check fails closed, and the finding says why; `has(service.x)` guards an optional field.
import type { ParseResult } from '@marcbachmann/cel-js';
import { actionCelType, answerVariablesEnvironment, elementType } from '../dsl/expression-types';
import { CEL_TYPE_NAMES, expressionReferences } from '../dsl/expression-references';
import {
  celEnvironment,
  celMessage,
  checkExpression,
  fromCel,
  parseBounded,
  toCel,
} from '../dsl/expressions';
import type { JsonValue } from '../dsl/expressions';

/** The one variable an expectation reads. */
export const SERVICE_VARIABLE = 'service';

export interface Expectation {
  readonly text: string;
  readonly parsed: ParseResult;
  /** The field paths of `service` it reads, for saying what was found (`ha_replicas.replica_count`). */
  readonly reads: readonly string[][];
}

function firstLine(message: string): string {
  return celMessage(message.split('\n')[0] ?? message).replace(/tideline\.service\.list\.?/g, 'service');
}

/** Parses and type-checks an expectation; the problem says what is wrong (the caller adds where). */
export function compileExpectation(
  text: string,
): { ok: true; expectation: Expectation } | { ok: false; problem: string } {
  const syntax = checkExpression(text);
  if (!syntax.ok) return { ok: false, problem: syntax.message };
  const reads: string[][] = [];
  for (const reference of expressionReferences(text)) {
    if (reference.root === SERVICE_VARIABLE) reads.push(reference.path);
    else if (!CEL_TYPE_NAMES.has(reference.root))
      return {
        ok: false,
        problem: `\`${text}\`: unknown variable \`${reference.root}\`; an expectation reads \`service\``,
      };
  }
  const env = answerVariablesEnvironment({ [SERVICE_VARIABLE]: elementType(actionCelType('service.list')) });
  let checked: ReturnType<ParseResult['check']>;
  try {
    checked = parseBounded(env, text).check();
  } catch (error) {
    return {
      ok: false,
      problem: `\`${text}\`: ${firstLine(error instanceof Error ? error.message : String(error))}`,
    };
  }
  if (!checked.valid) {
    const node = checked.error?.node;
    const part = node ? text.slice(node.start, node.end) : text;
    return {
      ok: false,
      problem: `\`${part}\`: ${checked.error ? firstLine(checked.error.message) : 'type error'}`,
    };
  }
  const type = checked.type ?? 'dyn';
  if (type !== 'bool' && type !== 'dyn')
    return { ok: false, problem: `\`${text}\` gives ${type}, but an expectation must be true or false` };
  return { ok: true, expectation: { text, parsed: parseBounded(celEnvironment, text), reads } };
}

/** Whether a service meets an expectation, or why that cannot be said. */
export function meets(
  expectation: Expectation,
  service: JsonValue,
): { ok: true; value: boolean } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = expectation.parsed({ [SERVICE_VARIABLE]: toCel(service) });
  } catch (error) {
    return { ok: false, error: firstLine(error instanceof Error ? error.message : String(error)) };
  }
  if (typeof value !== 'boolean') return { ok: false, error: `gave ${typeof value}, not true or false` };
  return { ok: true, value };
}

/** What a service holds at the paths an expectation reads: `{"ha_replicas.replica_count": 0}`. */
export function foundValues(expectation: Expectation, service: JsonValue): Record<string, JsonValue> {
  const found: Record<string, JsonValue> = {};
  for (const path of expectation.reads) {
    let value: JsonValue | undefined = service;
    for (const field of path) {
      value =
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? value[field]
          : Array.isArray(value) && /^\d+$/.test(field)
            ? value[Number(field)]
            : undefined;
    }
    found[path.join('.') || SERVICE_VARIABLE] = value === undefined ? null : fromCel(value);
  }
  return found;
}
