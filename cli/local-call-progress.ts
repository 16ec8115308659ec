// `attempt N (last: …)` for a running call that runs as a local activity (patch localCalls).
//
// A normal activity's attempt and last failure come from Temporal's pending activities
// (run-observer.ts); a local activity is not among them. Its attempts are retried inside the
// worker and neither the server nor the workflow hears of them until the call ends, with one
// exception: a backoff longer than the local retry threshold (10 s, workflows/activity-policies.ts)
// ends the attempt with a marker (the failure, the attempt number, `backoff` set), the run sleeps on
// a timer and schedules the call again. That marker is in the history as soon as the run's workflow
// task completes, so the newest history events (one reverse page, newest first) tell a running
// call's attempt and last failure during long backoffs. Shorter retries stay invisible until the
// call ends (docs/troubleshooting.md).
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every SDK module */
import type { temporal } from '@temporalio/proto';
import type { LoadedDataConverter } from '@temporalio/common';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { RunProgress, StepRecord } from '../contract/run-messages';
import { localAttemptEnd, localCandidates } from './local-activity-markers';
import type { ActivityState } from './activity-state';
import type { TemporalSession } from './temporal';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Newest events read: a backoff marker is followed by a timer and a few workflow task events. */
const REVERSE_PAGE = 25;

/**
 * Running call steps ↔ the backoff marker of their local activity, from `events` newest first.
 * Only a call's newest marker counts: one without a backoff ended that chain of attempts.
 */
export async function backoffStates(
  newestFirst: readonly HistoryEvent[],
  running: readonly StepRecord[],
  converter: LoadedDataConverter,
): Promise<Record<string, ActivityState>> {
  const { decodeOptionalFailureToOptionalError } =
    require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
  const seen = new Set<string>();
  const states: Record<string, ActivityState> = {};
  for (const event of newestFirst) {
    const end = await localAttemptEnd(event, converter);
    const summary = end?.summary;
    if (end === undefined || summary === undefined) continue;
    const call = `${end.type}\n${summary}`;
    if (seen.has(call)) continue;
    seen.add(call);
    if (end.failure === undefined || !end.backingOff) continue;
    const [step, ...more] = localCandidates({ type: end.type, local: { seq: end.seq, summary } }, running);
    if (step === undefined || more.length > 0) continue; // no single step: say nothing rather than guess
    const state: ActivityState = { attempt: end.attempt + 1 };
    try {
      const error = await decodeOptionalFailureToOptionalError(converter, end.failure);
      if (error) state.lastFailure = error.message;
    } catch {
      // Progress display only: an undecodable failure is left out.
    }
    states[step.key] = state;
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
