// Reads a run from Temporal: its execution status, the interpreter's progress (the `progress`
// query), what each running call or wait is doing right now (pending activities: attempt, last
// error, a wait's last seen status from its heartbeat; a local call's backoff marker), and once it has ended, its outcome
// (the RunReport carried in the result or in the RUNBOOK_FAILED failure).
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily: commands that never talk to Temporal stay fast */
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import type { JsonValue } from '../dsl/expressions';
import { API_STEP_KINDS } from '../dsl/step-kinds/runtime-table';
import type { RunProgress, RunReport, StepRecord } from '../contract/run-messages';
import type { ActivityState } from './activity-state';
import { localCallStates } from './local-call-progress';
import { timestampMillis } from '../contract/proto-time';
import { currentInvocation, shellQuote } from './output/cli-invocation';
import type { TemporalSession } from './temporal';

export { RUNBOOK_WORKFLOW_TYPE } from '../contract/workflow-types';
export type { ActivityState };

const QUERY_TIMEOUT_MS = 5_000;

export type RunStatusName =
  'running' | 'held' | 'compensating' | 'succeeded' | 'failed' | 'cancelled' | 'terminated' | 'timed-out';

export interface RunSnapshot {
  workflowId: string;
  runId: string;
  taskQueue: string;
  closed: boolean;
  temporalStatus: string;
  progress?: RunProgress;
  /** Step key → its running activity. */
  activities: Record<string, ActivityState>;
  /** Step key → the workflow id of its running child runbook. */
  childRuns?: Record<string, string>;
  /** Why there is no progress yet (e.g. no worker on the task queue). */
  note?: string;
}

export interface RunOutcome {
  workflowId: string;
  runId: string;
  runbook?: string;
  status: RunStatusName;
  progress?: RunProgress;
  outputs: Record<string, JsonValue>;
  secretOutputs: string[];
  failure?: { stepKey?: string; type: string; message: string };
  /** The service lock the run queued on before its steps, and how long (when the CLI saw it wait). */
  lockWait?: { key: string; ms: number };
}

export function runStatusOf(temporalStatus: string): RunStatusName {
  switch (temporalStatus) {
    case 'COMPLETED':
      return 'succeeded';
    case 'FAILED':
      return 'failed';
    case 'CANCELLED':
      return 'cancelled';
    case 'TERMINATED':
      return 'terminated';
    case 'TIMED_OUT':
      return 'timed-out';
    default:
      return 'running';
  }
}

function internals(): typeof import('@temporalio/common/lib/internal-non-workflow') {
  return require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
}

function hasTidelineCode(error: unknown): boolean {
  for (let link = error, depth = 0; link !== null && link !== undefined && depth < 6; depth++) {
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('TIDELINE_')) return true;
    link = (link as { cause?: unknown }).cause;
  }
  return false;
}

/** The interpreter's progress, or undefined when no worker answers in time. */
export async function queryProgress(
  session: TemporalSession,
  handle: WorkflowHandle,
): Promise<RunProgress | undefined> {
  const { progressQuery } = require('../contract/run-messages') as typeof import('../contract/run-messages');
  try {
    return await session.client.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () =>
      handle.query(progressQuery),
    );
  } catch (error) {
    // A missing run or data this CLI cannot decrypt (other keys than the worker's) are real
    // errors; anything else (no worker, a slow one) only means no progress to show yet.
    if ((error as { name?: unknown }).name === 'WorkflowNotFoundError' || hasTidelineCode(error)) throw error;
    return undefined;
  }
}

/** A hint when nothing polls the run's task queue. */
export async function workerNote(session: TemporalSession, taskQueue: string): Promise<string> {
  try {
    const answer = await session.client.workflowService.describeTaskQueue({
      namespace: session.target.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
    if ((answer.pollers ?? []).length === 0) {
      const start = [...currentInvocation(), 'worker', '--task-queue', taskQueue].map(shellQuote).join(' ');
      return `no worker is polling task queue "${taskQueue}": start one with \`${start}\``;
    }
  } catch {
    // fall through to the generic note
  }
  return 'waiting for the worker to report progress';
}

/**
 * Running call/wait steps ↔ their pending activities, by activity id == step key (the interpreter
 * names activities after their steps since patch `stepActivityIds`). Activities of runs started
 * before that carry numbers; they are left out rather than matched to a step by guesswork, so such
 * a run shows its steps' states without the attempt/poll details (see cli/history-timeline.ts).
 */
async function activityStates(
  session: TemporalSession,
  description: WorkflowExecutionDescription,
  progress: RunProgress,
): Promise<Record<string, ActivityState>> {
  const running = new Set(
    progress.steps
      .filter((step) => step.status === 'running' && API_STEP_KINDS.has(step.kind))
      .map((step) => step.key),
  );
  const pending = (description.raw.pendingActivities ?? []).filter(
    (activity) => typeof activity.activityId === 'string' && running.has(activity.activityId),
  );
  if (pending.length === 0) return {};
  const { decodeArrayFromPayloads, decodeOptionalFailureToOptionalError } = internals();
  const converter = session.client.options.loadedDataConverter;
  const states: Record<string, ActivityState> = {};
  for (const activity of pending) {
    const state: ActivityState = { attempt: activity.attempt ?? 1 };
    const heartbeatAt = timestampMillis(activity.lastHeartbeatTime);
    if (Number.isFinite(heartbeatAt) && heartbeatAt > 0) state.heartbeatAt = heartbeatAt;
    try {
      const failure = await decodeOptionalFailureToOptionalError(converter, activity.lastFailure);
      if (failure) state.lastFailure = failure.message;
      const [details] = await decodeArrayFromPayloads(converter, activity.heartbeatDetails?.payloads);
      if (details !== null && typeof details === 'object') {
        const beat = details as { polls?: unknown; lastStatus?: unknown; lastError?: unknown };
        if (typeof beat.polls === 'number') state.polls = beat.polls;
        if (typeof beat.lastStatus === 'string') state.lastStatus = beat.lastStatus;
        if (typeof beat.lastError === 'string') state.lastError = beat.lastError;
      }
    } catch {
      // Progress display only: an undecodable detail is left out.
    }
    states[activity.activityId as string] = state;
  }
  return states;
}

/**
 * Running runbook steps ↔ their child runs, whose workflow id is `<run id>/<step key>`, and a
 * running fleet-sized foreach ↔ its current batch run, `<run id>/<foreach key>[<first>-<last>]`
 * (batches run one after the other; workflows/foreach-batch.ts).
 */
function childRuns(description: WorkflowExecutionDescription, progress: RunProgress): Record<string, string> {
  const pending = (description.raw.pendingChildren ?? []).map((child) => child.workflowId ?? '');
  const runs: Record<string, string> = {};
  for (const step of progress.steps) {
    if (step.status !== 'running') continue;
    const childId = `${description.workflowId}/${step.key}`;
    const match =
      step.kind === 'runbook'
        ? pending.find((id) => id === childId)
        : step.kind === 'foreach'
          ? pending.find((id) => id.startsWith(`${childId}[`) && /\[\d+-\d+\]$/.test(id))
          : undefined;
    if (match !== undefined) runs[step.key] = match;
  }
  return runs;
}

/** One look at a run (describe + progress query + pending activities and child runs). */
export async function observeRun(session: TemporalSession, handle: WorkflowHandle): Promise<RunSnapshot> {
  const description = await handle.describe();
  const closed = description.status.name !== 'RUNNING';
  const snapshot: RunSnapshot = {
    workflowId: description.workflowId,
    runId: description.runId,
    taskQueue: description.taskQueue,
    closed,
    temporalStatus: description.status.name,
    activities: {},
  };
  if (closed) return snapshot;
  const progress = await queryProgress(session, handle);
  if (progress === undefined) {
    snapshot.note = await workerNote(session, description.taskQueue);
    return snapshot;
  }
  snapshot.progress = progress;
  const local = await localCallStates(session, description, progress);
  snapshot.activities = { ...local, ...(await activityStates(session, description, progress)) };
  snapshot.childRuns = childRuns(description, progress);
  return snapshot;
}

function isReport(value: unknown): value is RunReport {
  return value !== null && typeof value === 'object' && Array.isArray((value as RunReport).steps);
}

/** How a closed run ended, with its report when the run produced one. */
export async function readOutcome(
  session: TemporalSession,
  handle: WorkflowHandle,
  snapshot: Pick<RunSnapshot, 'workflowId' | 'runId' | 'temporalStatus'>,
): Promise<RunOutcome> {
  const outcome: RunOutcome = {
    workflowId: snapshot.workflowId,
    runId: snapshot.runId,
    status: runStatusOf(snapshot.temporalStatus),
    outputs: {},
    secretOutputs: [],
  };
  const apply = (report: RunProgress & Partial<RunReport>): void => {
    outcome.progress = report;
    outcome.runbook = report.runbook;
    outcome.outputs = report.outputs ?? {};
    outcome.secretOutputs = report.secretOutputs ?? [];
    if (report.failure) outcome.failure = { ...report.failure };
  };
  try {
    const result: unknown = await handle.result();
    if (isReport(result)) apply(result);
    return outcome;
  } catch (error) {
    const cause = (
      error as { cause?: { name?: string; type?: string; message?: string; details?: unknown[] } }
    ).cause;
    const details = cause?.details?.[0];
    if (isReport(details)) apply(details);
    else if (outcome.status === 'cancelled') {
      // A cancelled run rethrows the cancellation after compensating; its report is in the query.
      const progress = await queryProgress(session, handle);
      if (progress) apply(progress);
    }
    if (outcome.failure === undefined) {
      outcome.failure = {
        type: cause?.type ?? (outcome.status === 'cancelled' ? 'CANCELLED' : (cause?.name ?? 'FAILED')),
        message: cause?.message || (error instanceof Error ? error.message : String(error)),
      };
    }
    if ((error as { name?: unknown }).name === 'WorkflowNotFoundError') throw error;
    return outcome;
  }
}

/** The records in display order: each top-level step followed by its nested and undo steps. */
export function orderedSteps(steps: StepRecord[]): StepRecord[] {
  const topKey = (key: string): string => /^[^.[/]+/.exec(key)?.[0] ?? key;
  const groups = new Map<string, StepRecord[]>();
  for (const step of steps) {
    const group = groups.get(topKey(step.key));
    if (group) group.push(step);
    else groups.set(topKey(step.key), [step]);
  }
  return [...groups.values()].flat();
}

/** How deep a step sits: 0 for top-level, +1 per branch, loop iteration or compensation. */
export function stepDepth(key: string): number {
  return (key.match(/\.|\/undo/g) ?? []).length - (key.match(/\/undo\./g) ?? []).length;
}
