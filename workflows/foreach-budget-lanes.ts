// The iterations of a foreach that has an error budget or a ramp (semantics: foreach-budget.ts),
// inline in the run or in a batch child for its slice. Only definitions with `maxErrors` or `ramp`
// get here: older releases' schema refused those fields and a run's definition is pinned in its
// history, so no run started on an earlier release can take this path, and foreaches without
// them keep the loop of foreach-lanes.ts, command for command.
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { ForeachStepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { sideBySide } from './concurrent-calls';
import {
  BudgetTally,
  rampAfterFailure,
  rampAfterSuccess,
  type ItemFailure,
  type ItemOutcome,
  type RampState,
} from './foreach-budget';
import {
  bodyChangesServices,
  iterationResult,
  iterationRun,
  iterationScope,
  type IterationsOptions,
} from './foreach-lanes';
import type { Interpreter, Scope } from './interpreter';
import { StepFailed, runCancelled, summariseFailure } from './step-failure';

export interface BudgetedIterationsOptions extends IterationsOptions {
  /** Failed items these items may still have (what the earlier batches left of the budget). */
  allowed: number;
  /** Cancel the items in flight once the budget is spent (`onMaxErrors: cancel`). */
  cancelInFlight: boolean;
  /** The ramp where it is (carried from batch to batch); updated as items finish. */
  ramp?: RampState;
}

export interface BudgetedIterationsOutcome {
  results: JsonValue[];
  outcomes: ItemOutcome[];
  /** Failed items, in the order they failed; positions in `items`. */
  failures: ItemFailure[];
  /** More items failed than `allowed`: no new item started after that. */
  exceeded: boolean;
  /**
   * What ends the foreach whatever the budget says: the run's cancellation, or the failure of an
   * item whose hold an operator rolled back.
   */
  abort?: unknown;
}

export async function runBudgetedIterations(
  options: BudgetedIterationsOptions,
): Promise<BudgetedIterationsOutcome> {
  const { step, items, interpreter, ramp } = options;
  const limit = Math.max(1, options.limit);
  const results: JsonValue[] = new Array<JsonValue>(items.length).fill(null);
  const outcomes: ItemOutcome[] = new Array<ItemOutcome>(items.length).fill('not-started');
  const failures: ItemFailure[] = [];
  const lockable = bodyChangesServices(step);
  // Cancelled only by an exhausted budget with `onMaxErrors: cancel`; the run's cancellation
  // reaches the items through it too.
  const lanesScope = new CancellationScope();
  let budgetCancelled = false;
  let exceeded = false;
  let abort: unknown;
  let next = 0;
  let running = 0;
  const stopped = () => exceeded || abort !== undefined || next >= items.length;
  const cancelled = (error: unknown) => {
    if (!budgetCancelled) abort ??= error;
  };
  const failed = (position: number, error: unknown) => {
    const failure = summariseFailure(error);
    const stepKey =
      error instanceof StepFailed ? error.stepKey : `${options.key}[${options.offset + position}]`;
    failures.push({ position, stepKey, ...failure });
    outcomes[position] = 'failed';
    if (ramp !== undefined) rampAfterFailure(ramp);
    if (interpreter.state.holds?.rollingBack === true) abort ??= error;
    else if (failures.length > options.allowed && !exceeded) {
      exceeded = true;
      if (options.cancelInFlight) {
        budgetCancelled = true;
        lanesScope.cancel();
      }
    }
  };
  const { waves } = step;
  // The first item of a wave (positions over the whole list, across batches) waits for the wave before.
  const waitsForWave = () =>
    waves !== undefined && running > 0 && (options.offset + next) % waves === 0 && !stopped();
  const lane = async (): Promise<void> => {
    for (;;) {
      try {
        if (ramp !== undefined) {
          // A loop: every lane waiting is woken when one item ends, but only `width` may run.
          while (running >= ramp.width && !stopped())
            await condition(() => running < ramp.width || stopped());
        }
        // A loop for the same reason: only the first lane woken starts the next wave.
        while (waitsForWave()) await condition(() => !waitsForWave());
      } catch (error) {
        if (!isCancellation(error)) throw error;
        cancelled(error);
        return;
      }
      if (stopped()) return;
      const position = next++;
      running++;
      const iteration = iterationScope(options, position);
      try {
        await iterationRun(options, position, iteration, lockable);
        results[position] = iterationResult(step, iteration);
        outcomes[position] = 'succeeded';
        if (ramp !== undefined) rampAfterSuccess(ramp, limit);
      } catch (error) {
        if (isCancellation(error)) {
          outcomes[position] = 'cancelled';
          cancelled(error);
        } else failed(position, error);
      } finally {
        running--;
      }
    }
  };
  const lanes = Math.min(limit, items.length);
  await sideBySide(interpreter, lanes, () =>
    lanesScope.run(() => Promise.all(Array.from({ length: lanes }, lane))),
  );
  const outcome: BudgetedIterationsOutcome = { results, outcomes, failures, exceeded };
  if (abort !== undefined) outcome.abort = abort;
  return outcome;
}

/** Throws the foreach's failure when its budget ran out (BudgetTally.failure). */
export function throwIfBudgetSpent(tally: BudgetTally, key: string): void {
  const failure = tally.failure();
  if (failure !== undefined) throw new StepFailed(failure.stepKey ?? key, failure.type, failure.message);
}

/** A budgeted foreach of at most FOREACH_BATCH_SIZE items, in the run itself. */
export async function runBudgetedForeach(
  step: ForeachStepDefinition,
  items: JsonValue[],
  limit: number,
  scope: Scope,
  key: string,
  interpreter: Interpreter,
): Promise<JsonValue[]> {
  const tally = new BudgetTally(step, items.length, limit);
  const outcome = await runBudgetedIterations({
    step,
    items,
    offset: 0,
    limit,
    scope,
    key,
    interpreter,
    ...tally.forBatch(),
  });
  if (outcome.abort !== undefined) throw outcome.abort;
  // Cancelled while the budget had cancelled the items in flight: the run's cancel still counts.
  if (CancellationScope.current().consideredCancelled) throw runCancelled();
  tally.add(0, outcome);
  throwIfBudgetSpent(tally, key);
  return outcome.results;
}
