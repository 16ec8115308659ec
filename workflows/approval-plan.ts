// What an approval with approvers guards: the changing steps that come after it in the runbook
// (calls that are not reads, and child runbooks), each with its `with` resolved as far as the run
// knows now. A field that needs a later step's output keeps its template text. What is masked is
// decided by where a value comes from, never by what it is: a field named like a secret, and any
// value made from a secret input or a secret-named output field, show as "(secret)"; a target id
// that merely equals a secret's value is shown, so it cannot hide the target from approvers.
// Policies are given the same `with` unmasked (`decidedWith`): masking is for what is shown,
// never for what is decided. Approvers are shown this plan and sign it, so a signature holds only
// for the changes it was given for. Workflow code: pure.
import { MASKED, type ApprovalPlan, type PlannedChange } from '../contract/approval-messages';
import { canonicalJson } from '../contract/canonical-json';
import { isSecretFieldName } from '../cloud/secret-fields';
import type { RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { stepTree } from '../dsl/step-tree';
import { resolveTemplates } from '../dsl/templates';

/** Whether a text holds a secret value (whole, or embedded in a longer string). */
function holdsSecret(text: string, secrets: ReadonlySet<string>): boolean {
  for (const secret of secrets) if (secret !== '' && text.includes(secret)) return true;
  return false;
}

export function masked(value: JsonValue, secrets: ReadonlySet<string>): JsonValue {
  if (typeof value === 'string') return holdsSecret(value, secrets) ? MASKED : value;
  if (Array.isArray(value)) return value.map((item) => masked(item, secrets));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, secrets)]));
  return value;
}

/**
 * Stands in for a secret while a plan is resolved: whatever a template makes of a secret input or
 * a secret-named output field carries it (or a transformation of it, never the secret itself).
 */
const SECRET_STAND_IN = '\u0000tideline-secret\u0000';

/** A secret-named field anywhere in a step's output, replaced by the stand-in. */
function standInSecretFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(standInSecretFields);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [
      name,
      isSecretFieldName(name) ? SECRET_STAND_IN : standInSecretFields(item),
    ]),
  );
}

/**
 * The run's variables as a plan may show them: each secret input (by its declaration) and every
 * secret-named field of a step's output replaced by the stand-in.
 */
export function shownVariables(
  vars: Record<string, unknown>,
  secretInputs: ReadonlySet<string>,
): Record<string, unknown> {
  const inputs = vars.inputs as Record<string, unknown> | undefined;
  const steps = vars.steps as Record<string, { output?: unknown }> | undefined;
  return {
    ...vars,
    ...(inputs !== undefined && {
      inputs: Object.fromEntries(
        Object.entries(inputs).map(([name, value]) => [
          name,
          secretInputs.has(name) ? SECRET_STAND_IN : value,
        ]),
      ),
    }),
    ...(steps !== undefined && {
      steps: Object.fromEntries(
        Object.entries(steps).map(([id, result]) => [
          id,
          result === null || typeof result !== 'object'
            ? result
            : { ...result, output: standInSecretFields(result.output) },
        ]),
      ),
    }),
  };
}

/** A value made from a secret (it carries the stand-in), masked; everything else as it is. */
function maskedBySource(value: JsonValue): JsonValue {
  return masked(value, new Set([SECRET_STAND_IN]));
}

function resolvedField(raw: JsonValue, vars: Record<string, unknown>): JsonValue {
  try {
    return resolveTemplates(raw, vars);
  } catch {
    return raw;
  }
}

/**
 * A step's `with` (with an operator's changes) as approvers are shown it: resolved with `shown`
 * (shownVariables), secret-named fields and values made from secrets masked.
 */
export function shownWith(
  fields: Record<string, JsonValue>,
  shown: Record<string, unknown>,
  changes: Record<string, JsonValue> | undefined,
): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [name, raw] of Object.entries({ ...fields, ...changes }))
    out[name] = isSecretFieldName(name) ? MASKED : maskedBySource(resolvedField(raw, shown));
  return out;
}

/**
 * A step's `with` (with an operator's changes) as the worker's policies decide on it: resolved
 * with the run's own variables, nothing masked (a policy check's input is not kept in history).
 */
export function decidedWith(
  fields: Record<string, JsonValue>,
  vars: Record<string, unknown>,
  changes: Record<string, JsonValue> | undefined,
): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [name, raw] of Object.entries({ ...fields, ...changes })) out[name] = resolvedField(raw, vars);
  return out;
}

/**
 * The id (and key) of the approval a start rule asks for: `(start)` is no step id, so it names no
 * step's approval and no step's policy approval.
 */
export const START_APPROVAL_PREFIX = '(start).policy.';

export function startApprovalId(rule: string): string {
  return `${START_APPROVAL_PREFIX}${rule}`;
}

function isStartApproval(approvalId: string): boolean {
  return approvalId.startsWith(START_APPROVAL_PREFIX);
}

/** The plan approval step `approvalId` guards, resolved with the run's variables now. */
export function approvalPlan(
  definition: Pick<RunbookDefinition, 'steps'>,
  approvalId: string,
  definitionHash: string,
  vars: Record<string, unknown>,
  secretInputs: ReadonlySet<string>,
  withChanges: (stepId: string) => Record<string, JsonValue> | undefined,
): ApprovalPlan {
  const placed = stepTree(definition.steps, { compensate: false });
  const at = placed.findIndex(({ step }) => step.id === approvalId);
  // An approval a start rule asks for guards the whole run; one a step rule asks for, its step.
  const guarded =
    at >= 0
      ? placed.slice(at + 1)
      : isStartApproval(approvalId)
        ? placed
        : placed.filter(({ step }) => approvalId.startsWith(`${step.id}.policy.`));
  const shown = shownVariables(vars, secretInputs);
  const changes: PlannedChange[] = [];
  for (const { step } of guarded) {
    if (step.kind === 'call' && step.actionKind !== 'read') {
      changes.push({
        stepKey: step.id,
        action: step.action,
        with: shownWith(step.with, shown, withChanges(step.id)),
      });
    } else if (step.kind === 'runbook') {
      changes.push({
        stepKey: step.id,
        action: `runbook ${step.runbook.name}`,
        with: shownWith(step.with, shown, withChanges(step.id)),
      });
    }
  }
  return { definitionHash, changes };
}

export function samePlan(a: ApprovalPlan, b: ApprovalPlan): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
