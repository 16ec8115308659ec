// The action catalogue as the runbook language sees it: for each action its kind, summary, input
// fields (which are required) and secret fields, derived from cloud/operations.ts — not a copy. The
// secret fields are the catalogue's `secretFields`, which the worker's logger redacts as well.
import { z } from 'zod';
import type { ActionName, OperationDef, OperationKind } from '../cloud/operations';
import { ACTION_NAMES, operations } from '../cloud/operations';

export interface ActionField {
  name: string;
  required: boolean;
  /** Where the field travels: the URL path, the JSON body or the query string. */
  in: 'path' | 'body' | 'query';
}

export interface ActionInfo {
  name: ActionName;
  kind: OperationKind;
  summary: string;
  fields: ActionField[];
  requiredFields: string[];
  /** Input fields holding secrets (e.g. `password`): never put literals there. */
  secretInputFields: string[];
  /** Output fields holding secrets (e.g. `initial_password` of creates and forks). */
  secretOutputFields: string[];
  /** False when the operation answers without a body (the step's output is null). */
  hasOutput: boolean;
}

/**
 * Strips optional/nullable/default wrappers and pipes to reach the schema that holds the shape:
 * a pipe's input side for what a request accepts (the default), its output side for what an
 * answer holds once parsed.
 */
export function unwrapSchema(schema: z.ZodType, pipeSide: 'in' | 'out' = 'in'): z.ZodType {
  let current: z.ZodType = schema;
  for (;;) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable)
      current = current.unwrap() as z.ZodType;
    else if (current instanceof z.ZodDefault) current = current.removeDefault() as z.ZodType;
    else if (current instanceof z.ZodPipe) current = current[pipeSide] as z.ZodType;
    else return current;
  }
}

function objectShape(
  schema: z.ZodType | undefined,
  pipeSide: 'in' | 'out' = 'in',
): Record<string, z.ZodType> | undefined {
  if (schema === undefined) return undefined;
  const inner = unwrapSchema(schema, pipeSide);
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>) : undefined;
}

function describeAction(name: ActionName): ActionInfo {
  const def: OperationDef = operations[name];
  const fields: ActionField[] = def.pathParams.map((param) => ({ name: param, required: true, in: 'path' }));
  const extra = def.body ?? def.query;
  for (const [field, schema] of Object.entries(objectShape(extra) ?? {})) {
    fields.push({
      name: field,
      required: !schema.safeParse(undefined).success,
      in: def.body ? 'body' : 'query',
    });
  }
  return {
    name,
    kind: def.kind,
    summary: def.summary,
    fields,
    requiredFields: fields.filter((f) => f.required).map((f) => f.name),
    secretInputFields: [...def.secretFields.input],
    secretOutputFields: [...def.secretFields.output],
    hasOutput: def.response !== undefined,
  };
}

export const ACTION_CATALOGUE: Readonly<Record<ActionName, ActionInfo>> = Object.fromEntries(
  ACTION_NAMES.map((name) => [name, describeAction(name)]),
) as Record<ActionName, ActionInfo>;

export function isActionName(name: string): name is ActionName {
  return Object.prototype.hasOwnProperty.call(operations, name);
}

export function actionInfo(name: ActionName): ActionInfo {
  return ACTION_CATALOGUE[name];
}

export interface OutputFieldMismatch {
  /** How many path segments were fine before the unknown one. */
  index: number;
  field: string;
  known: string[];
}

/**
 * Checks a field path read from an action's answer (`["vpc_endpoint", "vpc_id"]`) against its
 * response schema. Numeric segments index lists. Returns the first field the answer cannot have.
 */
export function checkOutputPath(name: ActionName, path: readonly string[]): OutputFieldMismatch | undefined {
  const response = operations[name].response as z.ZodType | undefined;
  if (response === undefined) {
    return path.length > 0 ? { index: 0, field: path[0] ?? '', known: [] } : undefined;
  }
  let schema: z.ZodType = response;
  for (const [index, segment] of path.entries()) {
    // An answer is read as parsed: a pipe's output side.
    const inner = unwrapSchema(schema, 'out');
    if (inner instanceof z.ZodArray) {
      if (!/^[0-9]+$/.test(segment)) return { index, field: segment, known: [] };
      schema = inner.element as z.ZodType;
      continue;
    }
    const shape = objectShape(inner, 'out');
    if (shape === undefined) return undefined;
    const next = shape[segment];
    if (next === undefined) return { index, field: segment, known: Object.keys(shape) };
    schema = next;
  }
  return undefined;
}
