// What a run would do, without doing it: each step with the API request it would make (method,
// path, body), conditions, waits, approvals and compensations. Templates that depend only on
// inputs are resolved with the inputs given; everything else (values of earlier steps) is shown
// as written, because it is only known at run time. Secret inputs are never substituted.
import { splitActionInput } from '../../cloud/action-input';
import { operations, type ActionName, type OperationKind } from '../../cloud/operations';
import type { InputDefinition, RunbookDefinition, StepDefinition } from '../../dsl/definition';
import type { JsonValue } from '../../dsl/expressions';
import { hasTemplate } from '../../dsl/templates';
import { stepTree, type Frame } from '../../dsl/step-tree';
import { assertNever } from '../../cloud/assert-never';
import { viewsOf } from './step-kind-views';
import { PartialResolver } from './partial-resolver';
import type { Plan, PlanInput, PlanRequest, PlanStep } from './plan-types';

export type { Plan, PlanInput, PlanRequest, PlanStep } from './plan-types';
export { PartialResolver } from './partial-resolver';

/** What a call step changes and its `with` as the plan resolved it. */
export interface PlannedCall {
  actionKind: OperationKind;
  with: Record<string, JsonValue>;
}

/**
 * Each planned call step's kind of action and resolved `with`, kept beside the plan rather than
 * in it: the plan's JSON shows the request instead, and the policies (plan-policies.ts) read these.
 */
const plannedCalls = new WeakMap<PlanStep, PlannedCall>();

/** A call step's action kind and resolved `with` (undefined for other kinds of step). */
export function plannedCall(step: PlanStep): PlannedCall | undefined {
  return plannedCalls.get(step);
}

function request(action: ActionName, input: Record<string, JsonValue>): PlanRequest {
  const def = operations[action];
  const split = splitActionInput(action, input);
  const pending: Record<string, JsonValue> = {};
  const path = def.path.replace(/\{(\w+)\}/g, (whole, param: string) => {
    const value = input[param];
    if (value === undefined || hasTemplate(value)) {
      pending[param] = value ?? null;
      return whole;
    }
    return encodeURIComponent(String(value));
  });
  const planned: PlanRequest = { action, method: def.method, path, pending };
  if (split.body !== undefined) planned.body = split.body as Record<string, JsonValue>;
  if (split.query !== undefined) planned.query = split.query as Record<string, JsonValue>;
  return planned;
}

/** Where a step's plan goes in its parent's plan, and the key prefix the interpreter gives it. */
function placeIn(parent: PlanStep, frame: Frame): { prefix: string; list: PlanStep[] } {
  switch (frame.type) {
    case 'branch': {
      const branch = parent.branches?.find((planned) => planned.id === frame.branch);
      if (branch === undefined) throw new Error(`no branch ${frame.branch} planned under ${parent.key}`);
      return { prefix: `${parent.key}.${frame.branch}.`, list: branch.steps };
    }
    case 'foreach':
      if (parent.steps === undefined) throw new Error(`no foreach body planned under ${parent.key}`);
      return { prefix: `${parent.key}[*].`, list: parent.steps };
    case 'compensate':
      return { prefix: `${parent.key}/undo.`, list: parent.compensate };
    default:
      return assertNever(frame, 'step container');
  }
}

/**
 * The plans of `steps` and every step they hold, nested like the definition, from one walk of the
 * step tree (dsl/step-tree.ts). The walk reaches each step before the steps it holds, so a step's
 * plan is placed in its parent's (already made) by the container the walk says it sits in. A child
 * runbook's steps belong to another definition, which the walk never enters: they get a walk of
 * their own (planStep).
 */
function planSteps(steps: readonly StepDefinition[], prefix: string, resolver: PartialResolver): PlanStep[] {
  const top: PlanStep[] = [];
  // Each step's latest plan: a step object used twice has its nested steps walked right after it.
  const plans = new Map<StepDefinition, PlanStep>();
  for (const { step, parent, frames } of stepTree(steps)) {
    const frame = frames.at(-1);
    const above = parent === undefined ? undefined : plans.get(parent);
    if ((frame === undefined) !== (above === undefined)) throw new Error(`step ${step.id} out of place`);
    const place = frame === undefined || above === undefined ? { prefix, list: top } : placeIn(above, frame);
    const planned = planStep(step, `${place.prefix}${step.id}`, resolver);
    place.list.push(planned);
    plans.set(step, planned);
  }
  return top;
}

/** A step's own plan; the steps it holds are added by the walk (planSteps), a child runbook's here. */
function planStep(step: StepDefinition, key: string, resolver: PartialResolver): PlanStep {
  const planned: PlanStep = {
    key,
    id: step.id,
    kind: step.kind,
    continueOnError: step.continueOnError,
    compensate: [],
  };
  if (step.name !== undefined) planned.name = step.name;
  if (step.if !== undefined) planned.if = step.if;
  if (step.retry !== undefined) planned.retry = step.retry;
  const timeout = resolver.duration(step.timeoutMs);
  if (timeout !== undefined) planned.timeout = timeout;
  viewsOf(step.kind).plan(step, planned, {
    key,
    resolver,
    request,
    noteCall: (call, actionKind, resolved) => plannedCalls.set(call, { actionKind, with: resolved }),
    childSteps: (steps, childPrefix) => planSteps(steps, childPrefix, new PartialResolver({})),
  });
  return planned;
}

function planInput(
  name: string,
  spec: InputDefinition,
  bound: Record<string, JsonValue>,
  missing: Set<string>,
  given: Set<string>,
): PlanInput {
  const source: PlanInput['source'] = missing.has(name)
    ? 'missing'
    : given.has(name)
      ? 'given'
      : spec.default !== undefined
        ? 'default'
        : 'optional';
  const input: PlanInput = { name, type: spec.type, secret: spec.secret, source };
  if (spec.description !== undefined) input.description = spec.description;
  if (!spec.secret && (source === 'given' || source === 'default')) input.value = bound[name] ?? null;
  return input;
}

/** The inputs a plan may show and resolve with: bound, not missing, not secret. */
export function knownInputs(
  definition: RunbookDefinition,
  bound: Record<string, JsonValue>,
  missing: Set<string>,
): Record<string, JsonValue> {
  return Object.fromEntries(
    Object.entries(bound).filter(([name]) => {
      const spec = definition.inputs[name];
      return spec !== undefined && !spec.secret && !missing.has(name);
    }),
  );
}

/**
 * The plan of a runbook for bound inputs. `bound` holds the values of every input that could be
 * bound (given or default); `missing` names required inputs that were not given.
 */
export function buildPlan(
  definition: RunbookDefinition,
  file: string,
  bound: Record<string, JsonValue>,
  missing: Set<string>,
  given: Set<string>,
): Plan {
  const resolver = new PartialResolver(knownInputs(definition, bound, missing));
  const inputs = Object.entries(definition.inputs).map(([name, spec]) =>
    planInput(name, spec, bound, missing, given),
  );
  return {
    runbook: definition.name,
    description: definition.description,
    file,
    inputs,
    steps: planSteps(definition.steps, '', resolver),
    outputs: Object.entries(definition.outputs).map(([name, output]) => ({
      name,
      value: output.secret ? '(secret)' : resolver.value(output.value),
      secret: output.secret,
    })),
  };
}
