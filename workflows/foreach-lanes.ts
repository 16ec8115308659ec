// The iterations of a foreach, `limit` at a time: used inline by the run that owns the foreach,
// and by each batch child workflow for its slice of the items (foreach-batch.ts).
import type { ForeachStepDefinition } from '../dsl/definition';
import { narrowVariables, stepsNeeds } from '../dsl/expression-scope';
import type { JsonValue } from '../dsl/expressions';
import { sideBySide } from './concurrent-calls';
import { iterationLockKeys, holdLocksFor, locksHeldFor, withIterationLocks } from './foreach-locks';
import { celVariables, type Interpreter, type Scope } from './interpreter';
import { isLockedCall, lockScope } from './locks';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';

export interface IterationsOptions {
  step: ForeachStepDefinition;
  /** The items to run, the foreach's whole list or one batch of it. */
  items: JsonValue[];
  /** The index of `items[0]` in the foreach's list (iteration keys use the overall index). */
  offset: number;
  limit: number;
  scope: Scope;
  key: string;
  interpreter: Interpreter;
  /** Told of every iteration as it starts (a batch keeps their scopes for compensation). */
  onIteration?: (position: number, iteration: Scope) => void;
}

export interface IterationsOutcome {
  /** Per item: `{ <step id>: output }` of the body when the iteration finished, else null. */
  results: JsonValue[];
  done: boolean[];
  /** The first failure (or cancellation); later items were not started. */
  firstError: unknown;
}

const lockedBodies = new WeakMap<ForeachStepDefinition, boolean>();

/** Whether the body changes services, so its iterations take per-service locks. */
export function bodyChangesServices(step: ForeachStepDefinition): boolean {
  let known = lockedBodies.get(step);
  if (known === undefined) {
    known = lockScope(step.steps).some(isLockedCall);
    lockedBodies.set(step, known);
  }
  return known;
}

/** The scope item `position` runs in; told to `onIteration` (a batch keeps them for compensation). */
export function iterationScope(options: IterationsOptions, position: number): Scope {
  const { step, items, scope } = options;
  const iteration: Scope = {
    inputs: scope.inputs,
    steps: { ...scope.steps },
    vars: { ...scope.vars, [step.as]: items[position] ?? null },
  };
  options.onIteration?.(position, iteration);
  return iteration;
}

/**
 * Runs item `position`'s steps under its locks. Not async: the caller awaits the very promise of
 * the steps (or of the locks around them), so the loop's timing is the same as when it was inline.
 */
export function iterationRun(
  options: IterationsOptions,
  position: number,
  iteration: Scope,
  lockable: boolean,
): Promise<void> {
  const { step, offset, scope, key, interpreter } = options;
  const run = () => interpreter.runSteps(step.steps, iteration, `${key}[${offset + position}].`);
  const outer = locksHeldFor(scope);
  const keys = lockable
    ? iterationLockKeys(step.steps, narrowVariables(celVariables(iteration), stepsNeeds(step.steps)), [
        ...interpreter.heldLocks(),
        ...outer,
      ])
    : [];
  // Runs recorded before per-iteration locks run their iterations unlocked.
  if (keys.length > 0 && hasPatch(PATCHES.foreachLocks)) {
    holdLocksFor(iteration, [...outer, ...keys]);
    return withIterationLocks(keys, run);
  }
  if (outer.length > 0) holdLocksFor(iteration, outer);
  return run();
}

/** An iteration's entry in the foreach's output: `{ <step id>: output }` of its body. */
export function iterationResult(step: ForeachStepDefinition, iteration: Scope): JsonValue {
  return Object.fromEntries(step.steps.map((s) => [s.id, iteration.steps[s.id]?.output ?? null]));
}

export async function runIterations(options: IterationsOptions): Promise<IterationsOutcome> {
  const { step, items, interpreter } = options;
  const results: JsonValue[] = new Array<JsonValue>(items.length).fill(null);
  const done: boolean[] = new Array<boolean>(items.length).fill(false);
  const lockable = bodyChangesServices(step);
  let next = 0;
  let firstError: unknown;
  const lane = async (): Promise<void> => {
    while (next < items.length && firstError === undefined) {
      const position = next++;
      const iteration = iterationScope(options, position);
      try {
        await iterationRun(options, position, iteration, lockable);
        results[position] = iterationResult(step, iteration);
        done[position] = true;
      } catch (error) {
        firstError ??= error;
      }
    }
  };
  const lanes = Math.min(options.limit, items.length);
  await sideBySide(interpreter, lanes, () => Promise.all(Array.from({ length: lanes }, lane)));
  return { results, done, firstError };
}
