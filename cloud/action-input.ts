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
  const paramSchema = z.strictObject(Object.fromEntries(def.pathParams.map((p) => [p, idParam])));
  const parts: [z.ZodType, unknown][] = [[paramSchema, split.params]];
  const extraSchema = def.body ?? def.query ?? z.strictObject({});
  parts.push([extraSchema, split.body ?? split.query ?? {}]);
  const parsed: unknown[] = [];
  for (const [schema, value] of parts) {
    const result = schema.safeParse(value);
    if (result.success) parsed.push(result.data);
    else issues.push(...result.error.issues.flatMap(toIssues));
  }
  if (issues.length > 0) return { ok: false, issues };
  const [params, rest] = parsed as [Record<string, string>, Record<string, unknown>];
  return {
    ok: true,
    value: { params, body: def.body ? rest : undefined, query: def.query ? rest : undefined },
  };
}

/** One issue per problem; an unknown field gets its own issue at its own path. */
function toIssues(issue: z.core.$ZodIssue): ActionInputIssue[] {
  const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: [...path, key], message: `unknown field "${key}"` }));
  }
  return [{ path, message: issue.message }];
}
