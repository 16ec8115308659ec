// A run's per-step timeline: the interpreter's step records (what ran, when, how it ended) joined
// with what Temporal's event history says about each step's activity (how many attempts it took,
// the last failure) and child runbook.
//
// The join is by name, not by inference: the interpreter schedules every call and wait with the
// step key as activity id (patch `stepActivityIds`, tideline 2026-11), and every child runbook as
// workflow `<run id>/<step key>` (since the first release). Step keys are unique in a run, also
// for compensation steps (`create/undo.delete`), foreach iterations (`stop_each[3].stop`) and
// parallel branches (`both.left.create`), so an activity id either is a step key or it is not.
//
// Runs started before that patch numbered their activities ("1", "2", …), and the run's service
// lock requests (`lock.request`, run-wide or per foreach iteration) are numbered too. Those
// activities are not attributed to a step: matching them by action and time window worked for
// simple sequential runs but can pick the wrong step in parallel branches, foreach lanes and
// compensations, and a wrong attribution is worse than none. They are listed as activities
// outside the steps, with their attempts and last failure, so nothing the history knows is
// hidden. (Step ids start with a letter, so no step key is numeric.) A run that crossed the
// upgrade has both kinds: its later steps are attributed, its earlier activities listed apart.
//
// A foreach over more than 100 items runs its iterations in batch child workflows
// (`<run id>/<foreach key>[<first>-<last>]`, workflows/foreach-batch.ts) whose records the run
// merges into its own, but whose activities live in the batch's history. So the timeline joins
// several histories: the run's and its batches' (the same step keys name the same steps there);
// a child runbook started inside a batch is `<batch id>/<step key>`.
//
// Calls run as local activities (patch localCalls, tideline 2026-12) leave no activity events. From
// patch localCallAttempts (tideline 2027-04) on, the step's record keeps how many attempts the call
// took (`callAttempts`, reported by the call itself), and the failed attempts the history keeps
// name their step (cli/call-attempt-failures.ts): the step's activity is built from those. Local
// calls of runs started before show no attempts: the CLI does not read the SDK's marker data.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every SDK module */
import { NOTIFY_DELIVER_ACTIVITY, NOTIFY_PLAN_ACTIVITY } from '../contract/notification-messages';
import type { temporal } from '@temporalio/proto';
import type { LoadedDataConverter } from '@temporalio/common';
import type { RunbookDefinition } from '../dsl/definition';
import { API_STEP_KINDS } from '../dsl/step-kinds/runtime-table';
import type { RunbookWorkflowInput, StepRecord } from '../contract/run-messages';
import { assertNever } from '../cloud/assert-never';
import type { ActivityRun } from './activity-run';
import { failedAttempt, type FailedAttempt } from './call-attempt-failures';
import { timestampMillis } from '../contract/proto-time';

export type { ActivityRun };

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Failure = temporal.api.failure.v1.IFailure;

/** Activity types of the run's service locking (`lock.request`), which no step schedules. */
const LOCK_ACTIVITY_PREFIX = 'lock.';

export interface ChildRun {
  workflowId: string;
  startedAt: number;
  endedAt?: number;
  outcome: 'completed' | 'failed' | 'timed-out' | 'cancelled' | 'terminated' | 'not-started' | 'running';
  failure?: string;
}

export interface RunHistory {
  activities: ActivityRun[];
  children: ChildRun[];
  /** Failed attempts of local calls, in history order. */
  failedAttempts?: FailedAttempt[];
}

export interface TimelineStep extends StepRecord {
  /** Attempts of the step's activity (summed should it have been scheduled more than once). */
  attempts?: number;
  /** The step's (latest) activity, for call and wait steps. */
  activity?: ActivityRun;
  /** The child run of a runbook step. */
  child?: ChildRun;
  /** The batch child runs of a foreach over more than 100 items. */
  batches?: ChildRun[];
}

/** One history the timeline joins: the run's, or a foreach batch's. */
export interface HistorySource {
  workflowId: string;
  runs: RunHistory;
}

/** An activity that belongs to no step: service locking, or a numbered one of an older run. */
export interface OtherActivity extends ActivityRun {
  /** Why it is not under a step. */
  reason: string;
}

export interface Timeline {
  steps: TimelineStep[];
  otherActivities: OtherActivity[];
}

function idOf(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

async function failureText(failure: Failure, converter: LoadedDataConverter): Promise<string | undefined> {
  const { decodeOptionalFailureToOptionalError } =
    require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
  try {
    const error = await decodeOptionalFailureToOptionalError(converter, failure);
    if (!error) return undefined;
    const cause = (error.cause as { message?: string } | undefined)?.message;
    return cause ? `${error.message}: ${cause}` : error.message;
  } catch {
    return 'failure details could not be decrypted';
  }
}

type EndAttributes = { scheduledEventId?: unknown; initiatedEventId?: unknown; failure?: Failure | null };

/** Every activity and child workflow of the history with its attempts and outcome, in order. */
export async function historyRuns(
  events: HistoryEvent[],
  converter: LoadedDataConverter,
): Promise<RunHistory> {
  const activities = new Map<string, ActivityRun>();
  const children = new Map<string, ChildRun>();
  const failedAttempts: FailedAttempt[] = [];
  for (const event of events) {
    const at = timestampMillis(event.eventTime);
    if (event.markerRecordedEventAttributes) {
      const failed = await failedAttempt(event, converter);
      if (failed !== undefined) failedAttempts.push(failed);
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      activities.set(idOf(event.eventId), {
        activityId: scheduled.activityId ?? '',
        type: scheduled.activityType?.name ?? '',
        scheduledAt: at,
        attempts: 0,
        outcome: 'running',
      });
      continue;
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const run = activities.get(idOf(started.scheduledEventId));
      if (!run) continue;
      run.attempts = started.attempt ?? 1;
      const retried = started.lastFailure ? await failureText(started.lastFailure, converter) : undefined;
      if (retried !== undefined) run.retriedAfter = retried;
      continue;
    }
    const initiated = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (initiated) {
      children.set(idOf(event.eventId), {
        workflowId: initiated.workflowId ?? '',
        startedAt: at,
        outcome: 'running',
      });
      continue;
    }
    const activityEnds: [EndAttributes | null | undefined, ActivityRun['outcome']][] = [
      [event.activityTaskCompletedEventAttributes, 'completed'],
      [event.activityTaskFailedEventAttributes, 'failed'],
      [event.activityTaskTimedOutEventAttributes, 'timed-out'],
      [event.activityTaskCanceledEventAttributes, 'cancelled'],
    ];
    const childEnds: [EndAttributes | null | undefined, ChildRun['outcome']][] = [
      [event.startChildWorkflowExecutionFailedEventAttributes, 'not-started'],
      [event.childWorkflowExecutionCompletedEventAttributes, 'completed'],
      [event.childWorkflowExecutionFailedEventAttributes, 'failed'],
      [event.childWorkflowExecutionTimedOutEventAttributes, 'timed-out'],
      [event.childWorkflowExecutionCanceledEventAttributes, 'cancelled'],
      [event.childWorkflowExecutionTerminatedEventAttributes, 'terminated'],
    ];
    const end = async (run: ActivityRun | ChildRun | undefined, attributes: EndAttributes): Promise<void> => {
      if (!run) return;
      run.endedAt = at;
      const failure = attributes.failure ? await failureText(attributes.failure, converter) : undefined;
      if (failure !== undefined) run.failure = failure;
    };
    for (const [attributes, outcome] of activityEnds) {
      if (!attributes) continue;
      const run = activities.get(idOf(attributes.scheduledEventId));
      if (run) run.outcome = outcome;
      await end(run, attributes);
    }
    for (const [attributes, outcome] of childEnds) {
      if (!attributes) continue;
      const run = children.get(idOf(attributes.initiatedEventId));
      if (run) run.outcome = outcome;
      await end(run, attributes);
    }
  }
  return { activities: [...activities.values()], children: [...children.values()], failedAttempts };
}

/** The run's definition, from the input of its first event (decrypted with the shared keys). */
export async function runDefinition(
  events: HistoryEvent[],
  converter: LoadedDataConverter,
): Promise<RunbookDefinition | undefined> {
  const { decodeArrayFromPayloads } =
    require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (!started) return undefined;
  const [input] = await decodeArrayFromPayloads(converter, started.input?.payloads);
  return (input as RunbookWorkflowInput | undefined)?.definition;
}

/** Why an activity whose id is no step key is not under a step. */
function otherReason(run: ActivityRun): string {
  if (run.type.startsWith(LOCK_ACTIVITY_PREFIX)) return 'service locking, not a step';
  if (run.type === NOTIFY_DELIVER_ACTIVITY) return 'a notification to a target, not a step';
  return /^\d+$/.test(run.activityId)
    ? 'numbered activity id: scheduled before activities carried their step key (tideline 2026-11)'
    : 'activity id is not a step of this run';
}

/** A child workflow id below `parentId`: the step key it names, and its item range if a batch. */
function childKey(parentId: string, childId: string): { key: string; batch: boolean } | undefined {
  if (!childId.startsWith(`${parentId}/`)) return undefined;
  const rest = childId.slice(parentId.length + 1);
  const batch = /^(.+)\[\d+-\d+\]$/.exec(rest);
  return batch?.[1] !== undefined ? { key: batch[1], batch: true } : { key: rest, batch: false };
}

/** The foreach batch children a history started, for foreach steps among `steps`. */
export function foreachBatches(source: HistorySource, steps: StepRecord[]): ChildRun[] {
  const foreachKeys = new Set(steps.filter((step) => step.kind === 'foreach').map((step) => step.key));
  return source.runs.children.filter((child) => {
    const named = childKey(source.workflowId, child.workflowId);
    return named?.batch === true && foreachKeys.has(named.key);
  });
}

/**
 * Joins the step records with their activities (activity id == step key) and child runs (child
 * workflow id == `<workflow id>/<step key>`, or `…/<foreach key>[<first>-<last>]` for a batch)
 * from the run's history and its batches' (`sources`, the run's first). See the file comment for
 * what is not attributed.
 */
export function buildTimeline(steps: StepRecord[], sources: HistorySource[]): Timeline {
  const byKey = new Map<string, TimelineStep>();
  const timeline = steps.map((record): TimelineStep => {
    const step: TimelineStep = { ...record };
    byKey.set(step.key, step);
    return step;
  });
  const otherActivities: OtherActivity[] = [];
  for (const source of sources) {
    for (const run of source.runs.activities) {
      // Every run asks which notification targets hear it: bookkeeping, not worth a line.
      if (run.type === NOTIFY_PLAN_ACTIVITY) continue;
      const step = byKey.get(run.activityId);
      if (step === undefined || !API_STEP_KINDS.has(step.kind)) {
        otherActivities.push({ ...run, reason: otherReason(run) });
        continue;
      }
      step.attempts = (step.attempts ?? 0) + run.attempts;
      step.activity = run;
    }
    for (const child of source.runs.children) {
      const named = childKey(source.workflowId, child.workflowId);
      const step = named === undefined ? undefined : byKey.get(named.key);
      if (step?.kind === 'runbook' && named?.batch === false) step.child = child;
      if (step?.kind === 'foreach' && named?.batch === true) (step.batches ??= []).push(child);
    }
  }
  const failedAttempts = sources.flatMap((source) => source.runs.failedAttempts ?? []);
  for (const step of timeline) {
    if (step.callAttempts === undefined) continue;
    step.attempts = step.callAttempts;
    step.activity = localCallRun(
      step,
      failedAttempts.filter((failed) => failed.step === step.key),
    );
  }
  return { steps: timeline, otherActivities };
}

/**
 * A local call's activity, from its step's record and the failed attempts the history kept of it
 * (history order): the last of those is the call's own failure when the step failed.
 */
function localCallRun(step: TimelineStep, failed: readonly FailedAttempt[]): ActivityRun {
  const outcome = callOutcome(step);
  const before = outcome === 'completed' || outcome === 'running' ? failed : failed.slice(0, -1);
  const run: ActivityRun = {
    activityId: step.key,
    type: step.action ?? '',
    scheduledAt: step.startedAt ?? 0,
    attempts: step.callAttempts ?? 0,
    outcome,
    local: true,
  };
  if (step.endedAt !== undefined) run.endedAt = step.endedAt;
  if (outcome !== 'completed' && step.error !== undefined) run.failure = step.error.message;
  const retriedAfter = before[before.length - 1]?.message;
  if (retriedAfter !== undefined) run.retriedAfter = retriedAfter;
  return run;
}

/** How a call step's request ended, from the step's status. */
function callOutcome(step: StepRecord): ActivityRun['outcome'] {
  switch (step.status) {
    case 'pending':
    case 'running':
      return 'running';
    case 'done':
    case 'compensating':
    case 'compensated':
    case 'compensation-failed':
      return 'completed';
    case 'failed':
    case 'skipped':
      if (step.error?.type === 'CANCELLED' || step.error?.type === 'CANCELLED_FAILURE') return 'cancelled';
      return /TIMEOUT/.test(step.error?.type ?? '') ? 'timed-out' : 'failed';
    default:
      return assertNever(step.status);
  }
}
