// One batch of a fleet-sized foreach, as a child workflow of the run (design: foreach-batch.ts).
// It runs its items like the inline loop, never compensates, and always answers with what it did
// and what would undo it — also when an iteration failed or the run cancelled it.
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { RunGovernance } from './run-governance';
import type { JsonValue } from '../dsl/expressions';
import type { BatchBudgetResult, BatchUndo, ForeachBatchInput, ForeachBatchResult } from './foreach-batch';
import { runBudgetedIterations } from './foreach-budget-lanes';
import { compactRecord, narrowIteration, stepsById, stepsReadByUndo } from './foreach-batch';
import { concurrentCallsAsTasks } from './concurrent-calls';
import { siblingCancelSettlesAtStart } from './sibling-cancellation';
import { localCallAttemptsAtStart } from './local-calls';
import { locksStartHeldAtStart } from './locks';
import { runIterations } from './foreach-lanes';
import { Interpreter, type Scope, type StepResult } from './interpreter';
import { progressQuery, type RunFailure } from '../contract/run-messages';
import { startRelease } from './release-gate';
import { RunState } from './run-state';
import { StepFailed, summariseFailure } from './step-failure';
import { runStepKind } from './step-kinds';

/** The step results an iteration added to the run's scope (the run has the rest). */
function added(iteration: Scope, base: Scope): Record<string, StepResult> {
  const out: Record<string, StepResult> = {};
  for (const [id, result] of Object.entries(iteration.steps)) if (!(id in base.steps)) out[id] = result;
  return out;
}

export async function foreachBatchWorkflow(input: ForeachBatchInput): Promise<ForeachBatchResult> {
  // First, before any patch or command (workflows/release-gate.ts).
  startRelease();
  // Only a run starts its batches: one started from outside would run steps no worker admitted.
  if (workflowInfo().parent === undefined) {
    throw ApplicationFailure.create({
      type: 'RUNBOOK_NOT_ALLOWED',
      message: 'a foreach batch runs only as a child of a runbook run',
      nonRetryable: true,
    });
  }
  const { step, key } = input;
  const state = new RunState(input.runbook, Date.now());
  if (input.admission !== undefined)
    state.governance = new RunGovernance(
      input.runbook,
      input.admission,
      { steps: [step] },
      new Set(),
      () => undefined,
    );
  setHandler(progressQuery, () => state.progress());
  state.lockStatus = () => ({ held: input.heldLocks });
  const interpreter = new Interpreter(state, runStepKind, () => input.heldLocks);
  // Before any call (workflows/concurrent-calls.ts): its lanes run side by side like the run's.
  interpreter.concurrentCallsAsTasks = concurrentCallsAsTasks([step]);
  interpreter.localCallAttempts = localCallAttemptsAtStart([step]);
  locksStartHeldAtStart([step]);
  interpreter.siblingCancelSettles = siblingCancelSettlesAtStart([step]);
  const iterations: Scope[] = [];
  const options = {
    step,
    items: input.items,
    offset: input.offset,
    limit: input.concurrency,
    scope: input.scope,
    key,
    interpreter,
    onIteration: (position: number, iteration: Scope) => void (iterations[position] = iteration),
  };
  // A batch of a foreach with `maxErrors` or `ramp` (only those have `budget`; foreach-budget-lanes.ts)
  // answers its items' outcomes instead of failing at its first failed item.
  let budget: BatchBudgetResult | undefined;
  let outcome: { done: boolean[]; firstError: unknown };
  if (input.budget !== undefined) {
    const budgeted = await runBudgetedIterations({ ...options, ...input.budget });
    outcome = { done: budgeted.outcomes.map((o) => o === 'succeeded'), firstError: budgeted.abort };
    budget = { outcomes: budgeted.outcomes, failures: budgeted.failures, exceeded: budgeted.exceeded };
    if (input.budget.ramp !== undefined) budget.ramp = input.budget.ramp;
  } else outcome = await runIterations(options);

  const positions = new Map<Scope, number>();
  iterations.forEach((iteration, position) => positions.set(iteration, position));
  const owners = new Map<unknown, string>();
  for (const owner of stepsById(step.steps).values()) owners.set(owner.compensate, owner.id);
  const undo: BatchUndo[] = [];
  for (const entry of interpreter.registeredCompensations()) {
    const ownerId = owners.get(entry.steps);
    if (ownerId === undefined) continue;
    const position = positions.get(entry.scope);
    undo.push(
      position !== undefined
        ? { ownerKey: entry.ownerKey, ownerId, position }
        : {
            ownerKey: entry.ownerKey,
            ownerId,
            scope: { vars: entry.scope.vars, steps: added(entry.scope, input.scope) },
          },
    );
  }

  const error = outcome.firstError;
  const cancelled =
    error !== undefined && (isCancellation(error) || CancellationScope.current().consideredCancelled);
  let failure: RunFailure | undefined;
  if (error !== undefined && !cancelled) {
    const summary = summariseFailure(error);
    failure = { stepKey: error instanceof StepFailed ? error.stepKey : key, ...summary };
  }
  state.status = failure ? 'failed' : cancelled ? 'cancelled' : 'succeeded';
  state.endedAt = Date.now();
  // The answer is stored in the run's history too: only what the run reads of it (fleet histories
  // stay linear; foreach-batch.ts).
  const readByUndo = stepsReadByUndo(step);
  const result: ForeachBatchResult = {
    iterations: input.items.map((_item: JsonValue, position) => {
      const iteration = iterations[position];
      return iteration ? narrowIteration(added(iteration, input.scope), input.outputReads, readByUndo) : null;
    }),
    done: outcome.done,
    undo,
    records: state.progress().steps.map(compactRecord),
    cancelled,
  };
  if (failure) result.failure = failure;
  if (budget) result.budget = budget;
  return result;
}
