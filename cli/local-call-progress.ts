// `attempt N (last: …)` for a running call that runs as a local activity (patch localCalls).
//
// A normal activity's attempt and last failure come from Temporal's pending activities
// (run-observer.ts); a local activity is not among them. Its attempts are retried inside the
// worker and neither the server nor the workflow hears of them until the call ends, with one
// exception: a backoff longer than the local retry threshold (10 s, workflows/activity-policies.ts)
// ends the attempt, the history keeps its failure, the run sleeps on a timer and schedules the call
// again. That failure names its step and attempt in tideline's own terms
// (cli/call-attempt-failures.ts) and is in the history as soon as the run's workflow task
// completes, so the newest history events (one reverse page, newest first) tell a running call's
// attempt and last failure during long backoffs. Shorter retries stay invisible until the call
// ends (docs/troubleshooting.md).
import type { temporal } from '@temporalio/proto';
import type { LoadedDataConverter } from '@temporalio/common';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { RunProgress, StepRecord } from '../contract/run-messages';
import { failedAttempt } from './call-attempt-failures';
import type { ActivityState } from './activity-state';
import type { TemporalSession } from './temporal';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Newest events read: a backoff's failure is followed by a timer and a few workflow task events. */
const REVERSE_PAGE = 25;

/**
 * Running call steps ↔ the newest failed attempt the history keeps of them since they started
 * (from `events`, newest first): the step is still running, so the next attempt follows.
 */
export async function backoffStates(
  newestFirst: readonly HistoryEvent[],
  running: readonly StepRecord[],
  converter: LoadedDataConverter,
): Promise<Record<string, ActivityState>> {
  const byKey = new Map(running.map((step) => [step.key, step]));
  const states: Record<string, ActivityState> = {};
  for (const event of newestFirst) {
    const failed = await failedAttempt(event, converter);
    const step = failed === undefined ? undefined : byKey.get(failed.step);
    if (failed === undefined || step === undefined || failed.step in states) continue;
    // A failure from before the step (re)started belongs to an earlier run of it.
    if (step.startedAt !== undefined && failed.at < step.startedAt) continue;
    states[failed.step] = { attempt: failed.attempt + 1, lastFailure: failed.message };
  }
  return states;
}

/** Attempt states of running call steps that have no pending activity (local calls). */
export async function localCallStates(
  session: TemporalSession,
  description: WorkflowExecutionDescription,
  progress: RunProgress,
): Promise<Record<string, ActivityState>> {
  const pending = new Set((description.raw.pendingActivities ?? []).map((activity) => activity.activityId));
  const running = progress.steps.filter(
    (step) => step.status === 'running' && step.kind === 'call' && !pending.has(step.key),
  );
  if (running.length === 0) return {};
  try {
    const page = await session.client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: session.target.namespace,
      execution: { workflowId: description.workflowId, runId: description.runId },
      maximumPageSize: REVERSE_PAGE,
    });
    return await backoffStates(
      page.history?.events ?? [],
      running,
      session.client.options.loadedDataConverter,
    );
  } catch {
    return {}; // progress display only
  }
}
