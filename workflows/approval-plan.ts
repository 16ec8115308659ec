// What an approval with approvers guards: the changing steps that come after it in the runbook
// (calls that are not reads, and child runbooks), each with its `with` resolved as far as the run
// knows now. A field that needs a later step's output keeps its template text; secret fields and
// secret input values are masked. Approvers are shown this plan and sign it, so a signature holds
// only for the changes it was given for. Workflow code: pure.
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

export function resolvedWith(
  fields: Record<string, JsonValue>,
  vars: Record<string, unknown>,
  changes: Record<string, JsonValue> | undefined,
  secrets: ReadonlySet<string>,
): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [name, raw] of Object.entries({ ...fields, ...changes })) {
    if (isSecretFieldName(name)) {
      out[name] = MASKED;
      continue;
    }
    let value: JsonValue;
    try {
      value = resolveTemplates(raw, vars);
    } catch {
      value = raw;
    }
    out[name] = masked(value, secrets);
  }
  return out;
}

/** The plan approval step `approvalId` guards, resolved with the run's variables now. */
export function approvalPlan(
  definition: Pick<RunbookDefinition, 'steps'>,
  approvalId: string,
  definitionHash: string,
  vars: Record<string, unknown>,
  secrets: ReadonlySet<string>,
  withChanges: (stepId: string) => Record<string, JsonValue> | undefined,
): ApprovalPlan {
  const placed = stepTree(definition.steps, { compensate: false });
  const at = placed.findIndex(({ step }) => step.id === approvalId);
  // An approval a policy asks for guards only the step it was asked for.
  const guarded =
    at >= 0 ? placed.slice(at + 1) : placed.filter(({ step }) => approvalId.startsWith(`${step.id}.policy.`));
  const changes: PlannedChange[] = [];
  for (const { step } of guarded) {
    if (step.kind === 'call' && step.actionKind !== 'read') {
      changes.push({
        stepKey: step.id,
        action: step.action,
        with: resolvedWith(step.with, vars, withChanges(step.id), secrets),
      });
    } else if (step.kind === 'runbook') {
      changes.push({
        stepKey: step.id,
        action: `runbook ${step.runbook.name}`,
        with: resolvedWith(step.with, vars, withChanges(step.id), secrets),
      });
    }
  }
  return { definitionHash, changes };
}

export function samePlan(a: ApprovalPlan, b: ApprovalPlan): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
