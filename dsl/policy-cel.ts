// CEL for policy rules: each `when`/`unless` is parsed and type-checked once, when the governance
// section is compiled, against the policy context's types (derived from PolicyContextSchema the
// way expression-types.ts derives runbook types), and evaluated over the context later.
//
// Like runbook expressions, conditions are checked in a typed environment and evaluated in the
// shared dynamic one (expressions.ts): the typed environment would refuse the nulls the context
// holds (`step` at run start, an unknown `target`, a target without `environment`). Reading a
// field of a null `step` or `target` is therefore an evaluation error, which policies.ts turns into
// "the rule applies" (fail closed); rules that mean otherwise test `target != null && …`.
import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import type { z } from 'zod';
import type { CelTypeTable } from './cel-types';
import { celTypeName, celTypeOf } from './cel-types';
import { CEL_TYPE_NAMES, expressionReferences } from './expression-references';
import { celEnvironment, celMessage, checkExpression, parseBounded, toCel } from './expressions';
import type { PolicyContext } from './policy-schema';
import { PolicyContextSchema } from './policy-schema';
import { suggestionHint } from './suggest';

/** What a rule may read: the context's fields and `now`. */
export const POLICY_VARIABLES = ['runbook', 'starter', 'inputs', 'step', 'target', 'now'] as const;
export type PolicyVariable = (typeof POLICY_VARIABLES)[number];

/** `now` is a CEL timestamp (google.protobuf.Timestamp): `now.getHours('Europe/Berlin') >= 9`. */
const TIMESTAMP = 'google.protobuf.Timestamp';

/** Values of these types may be compared with null: nullable fields read null. */
const NULLABLE_BUILTINS = ['string', 'int', 'double', 'bool', 'list<dyn>', 'map'];

/** A checked condition, ready to evaluate. */
export interface PolicyCondition {
  readonly text: string;
  /** The context variables it reads. */
  readonly reads: ReadonlySet<PolicyVariable>;
  readonly parsed: ParseResult;
}

let typedEnvironment: Environment | undefined;

/** The environment conditions are type-checked in, built once per process. */
function policyEnvironment(): Environment {
  if (typedEnvironment) return typedEnvironment;
  const table: CelTypeTable = new Map();
  const shape = PolicyContextSchema.shape as Record<string, z.ZodType>;
  const variables = Object.entries(shape).map(
    ([name, schema]) => [name, celTypeOf(schema, celTypeName('policy', name), table)] as const,
  );
  const env = celEnvironment.clone();
  for (const type of NULLABLE_BUILTINS) env.registerOperator(`${type} == null`, () => false);
  // Nested object types were added after their parent; register them first.
  for (const type of [...table.values()].reverse()) {
    env.registerType(type.name, { fields: type.fields });
    env.registerOperator(`${type.name} == null`, () => false);
    env.registerOperator(`string in ${type.name}`, () => false);
  }
  for (const [name, type] of variables) env.registerVariable(name, type);
  env.registerVariable('now', TIMESTAMP);
  typedEnvironment = env;
  return env;
}

/** A type as authors know it: the context's objects by name, timestamps as timestamp. */
function typeLabel(type: string): string {
  return type.replace(/tideline\.policy\.([a-z_]+)/g, '$1').replace(TIMESTAMP, 'timestamp');
}

function firstLine(message: string): string {
  return typeLabel(celMessage(message.split('\n')[0] ?? message));
}

function isPolicyVariable(name: string): name is PolicyVariable {
  return (POLICY_VARIABLES as readonly string[]).includes(name);
}

/**
 * Parses and type-checks one condition. The problem says what is wrong (without the position,
 * which the caller adds): a syntax error, an unknown variable, a type mismatch, a non-boolean.
 */
export function compileCondition(
  text: string,
): { ok: true; condition: PolicyCondition } | { ok: false; problem: string } {
  const syntax = checkExpression(text);
  if (!syntax.ok) return { ok: false, problem: syntax.message };
  const reads = new Set<PolicyVariable>();
  for (const reference of expressionReferences(text)) {
    if (isPolicyVariable(reference.root)) reads.add(reference.root);
    else if (!CEL_TYPE_NAMES.has(reference.root)) {
      const hint = suggestionHint(reference.root, POLICY_VARIABLES, 'rules read');
      return { ok: false, problem: `\`${text}\`: unknown variable \`${reference.root}\` (${hint})` };
    }
  }
  const env = policyEnvironment();
  let checked: ReturnType<ParseResult['check']>;
  try {
    checked = parseBounded(env, text).check();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `\`${text}\`: ${firstLine(message)}` };
  }
  if (!checked.valid) {
    const error = checked.error;
    const node = error?.node;
    const part = node ? text.slice(node.start, node.end) : text;
    return { ok: false, problem: `\`${part}\`: ${error ? firstLine(error.message) : 'type error'}` };
  }
  const type = checked.type ?? 'dyn';
  if (type !== 'bool' && type !== 'dyn')
    return {
      ok: false,
      problem: `\`${text}\` gives ${typeLabel(type)}, but a condition must be true or false`,
    };
  return { ok: true, condition: { text, reads, parsed: parseBounded(celEnvironment, text) } };
}

/** The CEL variables of a context at `nowMs`. */
export function policyVariables(context: PolicyContext, nowMs: number): Record<string, unknown> {
  return {
    runbook: toCel(context.runbook),
    starter: toCel(context.starter),
    inputs: toCel(context.inputs),
    step: toCel(context.step),
    target: toCel(context.target),
    now: new Date(nowMs),
  };
}

/** A condition's value, or why it could not be evaluated (an error, or a value that is not a bool). */
export function evaluateCondition(
  condition: PolicyCondition,
  variables: Record<string, unknown>,
): { ok: true; value: boolean } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = condition.parsed(variables);
  } catch (error) {
    return { ok: false, error: firstLine(error instanceof Error ? error.message : String(error)) };
  }
  if (typeof value !== 'boolean') return { ok: false, error: `gave ${typeof value}, not true or false` };
  return { ok: true, value };
}
