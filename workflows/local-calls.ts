// A call step run as a local activity (PATCHES.localCalls): in the workflow task that reaches the
// step, one marker event, no activity task round trip (workflows/activity-policies.ts,
// LOCAL_CALL_CLASSES). From PATCHES.localCallAttempts on, the call reports its attempts in
// tideline's own terms (contract/call-attempts.ts) and the step's record keeps them.
//
// Patches that change what a local call does are asked for at the start of the run, before any
// local activity: Temporal's core SDK (1.24) may hand a local activity's result to the workflow one
// task later than it recorded the marker, and replay hands it over at once, so code after a local
// activity can run in an earlier task on replay than it did; a patch first asked for there would be
// met on replay before the code asks for it (workflows/concurrent-calls.ts).
import {
  ActivityCancellationType,
  proxyLocalActivities,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import type { ActionActivityInput } from '../activities/action-activities';
import { callAttemptInError, isRecordedCallResult } from '../contract/call-attempts';
import type { StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { resolveDurationMs } from '../dsl/templates';
import { stepTree } from '../dsl/step-tree';
import { LOCAL_CALL_CLASSES, localCallOptions, stepRetry } from './activity-policies';
import type { Interpreter } from './interpreter';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';

type CallStep = Extract<StepDefinition, { kind: 'call' }>;

/**
 * Asks, before a run's first local call, for every patch a run may first ask for later (they are
 * all taken by runs of this release). A local activity can span several workflow tasks (one held
 * open by a slow API heartbeats the task); when a patch was first asked for in the task that
 * resolved it, replay meets the patch's marker before the code asks again and fails the run as
 * nondeterministic (seen with a cancel during a held call, then a query). A patch added later
 * must be listed here too, or be asked for before any call. A run behind the release gate asks
 * for none of those the gate implies (it has them, and records none).
 */
function notePatchesBeforeLocalCall(): void {
  for (const id of [
    PATCHES.undoableCallsFinish,
    PATCHES.parallelFailFast,
    PATCHES.stepActivityIds,
    PATCHES.cancellationKept,
    PATCHES.changesSettleBeforeCancel,
    PATCHES.foreachBatches,
    PATCHES.foreachLocks,
  ])
    hasPatch(id);
}

/**
 * Asked once at the start of a run (also of a foreach batch): whether its local calls report their
 * attempts. Only a run that has such calls asks (and records the patch); runs started earlier
 * never do, not even once they execute on this release.
 */
export function localCallAttemptsAtStart(steps: readonly StepDefinition[]): boolean {
  const hasLocalCalls = stepTree(steps).some(
    ({ step }) => step.kind === 'call' && LOCAL_CALL_CLASSES.has(step.actionKind),
  );
  return hasLocalCalls && hasPatch(PATCHES.localCallAttempts);
}

/**
 * The local activity's options. A read is abandoned on cancellation; a change is waited for (the
 * SDK's default for local activities), like `changesSettleBeforeCancel`.
 */
function localOptions(step: CallStep, key: string, vars: Record<string, unknown>): LocalActivityOptions {
  const options: LocalActivityOptions = { ...localCallOptions(step.actionKind), summary: step.name ?? key };
  const retry = stepRetry(step, options.retry);
  if (retry !== undefined) options.retry = retry;
  if (step.actionKind === 'read') options.cancellationType = ActivityCancellationType.TRY_CANCEL;
  if (step.timeoutMs !== undefined) options.scheduleToCloseTimeout = resolveDurationMs(step.timeoutMs, vars);
  return options;
}

/**
 * Runs the call: its answer, or its failure. `callArgs` resolves the activity's input (it may fail
 * the step); it is asked for after the patches, as it always was.
 */
export async function runLocalCall(
  step: CallStep,
  key: string,
  vars: Record<string, unknown>,
  interpreter: Interpreter,
  callArgs: () => ActionActivityInput,
): Promise<JsonValue> {
  notePatchesBeforeLocalCall();
  const local = proxyLocalActivities<TidelineActivities>(localOptions(step, key, vars))[step.action];
  const args = callArgs();
  if (!interpreter.localCallAttempts) return (await local(args)) as JsonValue;
  return runRecordingAttempts(key, interpreter, () => local({ ...args, recordAttemptsFor: key }));
}

/**
 * A local call that reports its attempts: the step's record adds up the attempts of each time the
 * step ran (an operator's retry runs it again). A call that timed out or was cancelled reports
 * none (no attempt of it raised the failure).
 */
async function runRecordingAttempts(
  key: string,
  interpreter: Interpreter,
  call: () => Promise<unknown>,
): Promise<JsonValue> {
  const count = (attempt: number | undefined): void => {
    const record = interpreter.state.get(key);
    if (record !== undefined && attempt !== undefined)
      record.callAttempts = (record.callAttempts ?? 0) + attempt;
  };
  let answer: unknown;
  try {
    answer = await call();
  } catch (error) {
    count(callAttemptInError(error)?.record.attempt);
    throw error;
  }
  if (!isRecordedCallResult(answer)) return answer as JsonValue;
  count(answer.attempt);
  return answer.value as JsonValue;
}
