// What a hold action is judged on (contract/hold-judgement.ts), as the run knows it when the action
// arrives: the inputs the action leaves, the held step a retry runs again (with its changed
// values), and — for a step held at the top level — the later changing steps whose `with`
// resolves now with the action's values (a later change that needs an output not there yet is
// judged before it runs, for everyone who acted: run-governance.ts). Workflow code: pure.
import type { PlannedChange } from '../contract/approval-messages';
import type { HoldJudgeRequest } from '../contract/hold-judgement';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { stepTree } from '../dsl/step-tree';
import { MASKED } from '../contract/approval-messages';
import { isSecretFieldName } from '../cloud/secret-fields';
import { decidedWith } from './approval-plan';
import { celVariables, type Scope } from './interpreter';

/** Where a step is held: its key, its id and the scope it runs in. */
export interface HeldPlace {
  stepKey: string;
  stepId: string;
  scope: Scope;
}

export type JudgedAction =
  | { kind: 'retry'; held: HeldPlace; inputs: Record<string, JsonValue>; with: Record<string, JsonValue> }
  | { kind: 'skip'; held: HeldPlace; output: JsonValue }
  | { kind: 'rollback'; inputs: Record<string, JsonValue> };

type ChangeStep = Extract<StepDefinition, { kind: 'call' }>;

function isChange(step: StepDefinition): step is ChangeStep {
  return step.kind === 'call' && step.actionKind !== 'read';
}

/** Whether no field still holds a template (a value a later step's output gives). */
function resolved(value: JsonValue): boolean {
  if (typeof value === 'string') return !value.includes('${{');
  if (Array.isArray(value)) return value.every(resolved);
  if (value !== null && typeof value === 'object') return Object.values(value).every(resolved);
  return true;
}

/** The scope the run goes on in after the action. */
function scopeAfter(action: Exclude<JudgedAction, { kind: 'rollback' }>): Scope {
  const { scope, stepId } = action.held;
  return action.kind === 'retry'
    ? { ...scope, inputs: action.inputs }
    : { ...scope, steps: { ...scope.steps, [stepId]: { output: action.output, status: 'done' } } };
}

/**
 * The inputs as the worker's policies judge them: secret inputs (by their declaration) masked, since
 * the request is kept in the run's history; every other value as it is, whatever a secret's value.
 */
function judgedInputs(
  inputs: Record<string, JsonValue>,
  secretInputs: ReadonlySet<string>,
): Record<string, JsonValue> {
  return Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [name, secretInputs.has(name) ? MASKED : value]),
  );
}

/** A change's `with` as judged: resolved as the run knows it, secret-named fields masked. */
function judgedWith(
  fields: Record<string, JsonValue>,
  vars: Record<string, unknown>,
  changes: Record<string, JsonValue> | undefined,
): Record<string, JsonValue> {
  const decided = decidedWith(fields, vars, changes);
  for (const name of Object.keys(decided)) if (isSecretFieldName(name)) decided[name] = MASKED;
  return decided;
}

export function holdJudgeRequest(
  definition: Pick<RunbookDefinition, 'name' | 'steps'>,
  definitionHash: string,
  action: JudgedAction,
  secretInputs: ReadonlySet<string>,
  withChanges: (stepKey: string) => Record<string, JsonValue> | undefined,
): HoldJudgeRequest {
  const base = { runbook: definition.name, definitionHash };
  if (action.kind === 'rollback')
    return { ...base, inputs: judgedInputs(action.inputs, secretInputs), changes: [] };
  const scope = scopeAfter(action);
  const vars = celVariables(scope);
  const placed = stepTree(definition.steps, { compensate: false });
  const at = placed.findIndex(({ step }) => step.id === action.held.stepId);
  const changes: PlannedChange[] = [];
  const held = placed[at]?.step;
  if (action.kind === 'retry' && held !== undefined && isChange(held)) {
    const changed = { ...withChanges(action.held.stepKey), ...action.with };
    changes.push({
      stepKey: action.held.stepKey,
      action: held.action,
      with: judgedWith(held.with, vars, changed),
    });
  }
  // Later steps are resolved with the top-level scope only: inside a foreach or a parallel the
  // held step's scope is not theirs.
  if (at >= 0 && action.held.stepKey === action.held.stepId) {
    for (const { step } of placed.slice(at + 1)) {
      if (!isChange(step)) continue;
      const values = judgedWith(step.with, vars, withChanges(step.id));
      if (resolved(values)) changes.push({ stepKey: step.id, action: step.action, with: values });
    }
  }
  return { ...base, inputs: judgedInputs(scope.inputs, secretInputs), changes };
}
