// Action inputs: one flat object of path parameters and body/query fields (as a runbook's `with`
// and the client's methods take them), split for HTTP and checked against the catalogue's schemas.
import { z } from 'zod';
import { operations, type ActionName, type OperationDef } from './operations';

const idParam = z.string().min(1, 'must be a non-empty id');

export interface SplitInput {
  params: Record<string, string>;
  body: Record<string, unknown> | undefined;
  query: Record<string, unknown> | undefined;
}

/** Splits a flat action input into path parameters, body and query, as the HTTP layer needs. */
export function splitActionInput(action: ActionName, input: Record<string, unknown>): SplitInput {
  const def: OperationDef = operations[action];
  const params: Record<string, string> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if ((def.pathParams as readonly string[]).includes(key)) params[key] = String(value);
    else rest[key] = value;
  }
  if (def.query) return { params, body: undefined, query: rest };
  if (def.body) return { params, body: rest, query: undefined };
  return { params, body: undefined, query: Object.keys(rest).length > 0 ? rest : undefined };
}

export interface ActionInputIssue {
  /** Field path inside the flat input, e.g. `["cpu_millis"]`. */
  path: (string | number)[];
  message: string;
}

/**
 * The path-parameter schema of each action, built on its first use. zod compiles every new object
 * schema (a generated fast path) on its first parse, so a schema built per call was compiled per
 * call: a few per cent of a busy worker's CPU.
 */
const paramSchemas = new Map<ActionName, z.ZodType>();
/** The extra fields of an operation with neither body nor query: none are allowed. */
const NO_FIELDS = z.strictObject({});

function paramSchemaOf(action: ActionName, def: OperationDef): z.ZodType {
  let schema = paramSchemas.get(action);
  if (schema === undefined) {
    schema = z.strictObject(Object.fromEntries(def.pathParams.map((p) => [p, idParam])));
    paramSchemas.set(action, schema);
  }
  return schema;
}

/**
 * The splits validateActionInput returned, with the action and the input object each was checked
 * for. The client sends such a split without checking it again (`CallOptions.checkedInput`); a
 * look-alike built elsewhere, or one checked for another action or input, cannot skip the check.
 */
const checkedSplits = new WeakMap<SplitInput, { action: ActionName; input: Record<string, unknown> }>();

/** Whether validateActionInput returned `split` for this action and this very input object. */
export function isCheckedInput(
  split: SplitInput,
  action: ActionName,
  input: Record<string, unknown>,
): boolean {
  const origin = checkedSplits.get(split);
  return origin !== undefined && origin.action === action && origin.input === input;
}

/**
 * Validates a flat action input (path parameters + body/query fields) against the operation's
 * schemas. Unknown fields are issues, so a misspelt runbook field is caught before a run.
 */
export function validateActionInput(
  action: ActionName,
  input: Record<string, unknown>,
): { ok: true; value: SplitInput } | { ok: false; issues: ActionInputIssue[] } {
  const def: OperationDef = operations[action];
  const split = splitActionInput(action, input);
  const issues: ActionInputIssue[] = [];
  const parts: [z.ZodType, unknown][] = [
    [paramSchemaOf(action, def), split.params],
    [def.body ?? def.query ?? NO_FIELDS, split.body ?? split.query ?? {}],
  ];
  const parsed: unknown[] = [];
  for (const [schema, value] of parts) {
    const result = schema.safeParse(value);
    if (result.success) parsed.push(result.data);
    else issues.push(...result.error.issues.flatMap(toIssues));
  }
  if (issues.length > 0) return { ok: false, issues };
  const [params, rest] = parsed as [Record<string, string>, Record<string, unknown>];
  const value: SplitInput = {
    params,
    body: def.body ? rest : undefined,
    query: def.query ? rest : undefined,
  };
  checkedSplits.set(value, { action, input });
  return { ok: true, value };
}

/** One issue per problem; an unknown field gets its own issue at its own path. */
function toIssues(issue: z.core.$ZodIssue): ActionInputIssue[] {
  const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: [...path, key], message: `unknown field "${key}"` }));
  }
  return [{ path, message: issue.message }];
}
