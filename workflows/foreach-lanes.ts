// The iterations of a foreach, `limit` at a time: used inline by the run that owns the foreach,
// and by each batch child workflow for its slice of the items (foreach-batch.ts).
import type { ForeachStepDefinition } from '../dsl/definition';
import { narrowVariables, stepsNeeds } from '../dsl/expression-scope';
import type { JsonValue } from '../dsl/expressions';
import { sideBySide } from './concurrent-calls';
import { iterationLockKeys, holdLocksFor, locksHeldFor, withIterationLocks } from './foreach-locks';
import { celVariables, type Interpreter, type Scope } from './interpreter';
import { isLockedCall, lockScope } from './locks';
import { PATCHES } from './patches';
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

function bodyChangesServices(step: ForeachStepDefinition): boolean {
  let known = lockedBodies.get(step);
  if (known === undefined) {
    known = lockScope(step.steps).some(isLockedCall);
    lockedBodies.set(step, known);
  }
  return known;
}

export async function runIterations(options: IterationsOptions): Promise<IterationsOutcome> {
  const { step, items, offset, scope, key, interpreter } = options;
  const results: JsonValue[] = new Array<JsonValue>(items.length).fill(null);
  const done: boolean[] = new Array<boolean>(items.length).fill(false);
  const lockable = bodyChangesServices(step);
  let next = 0;
  let firstError: unknown;
  const lane = async (): Promise<void> => {
    while (next < items.length && firstError === undefined) {
      const position = next++;
      const iteration: Scope = {
        inputs: scope.inputs,
        steps: { ...scope.steps },
        vars: { ...scope.vars, [step.as]: items[position] ?? null },
      };
      options.onIteration?.(position, iteration);
      const run = () => interpreter.runSteps(step.steps, iteration, `${key}[${offset + position}].`);
      try {
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
          await withIterationLocks(keys, run);
        } else {
          if (outer.length > 0) holdLocksFor(iteration, outer);
          await run();
        }
        results[position] = Object.fromEntries(
          step.steps.map((s) => [s.id, iteration.steps[s.id]?.output ?? null]),
        );
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
