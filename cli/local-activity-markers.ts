// The local activities of a run's history, for `tideline history` (cli/history-timeline.ts) and a
// running call's attempt (cli/local-call-progress.ts). The only place that knows the SDK core's
// marker format: its callers get activity runs and attempt ends, never the marker's fields.
//
// What the CLI shows of a local call comes from the run's own records where they carry it: the
// step records (progress query, report) give the call's step, state, times and error; the
// summary tideline gives each local activity (step name, else key) names its step. What only the
// markers tell: how many attempts the call took, why the attempt before the last failed, whether
// it ended cancelled or timed out, and, while it runs, that it is backing off after a failure.
// Tideline's own records do not carry these (a local activity retries inside the worker, out of
// the workflow's sight), so they are read here. Were the workflow to record them (behind a patch),
// runs started before it would still have only these markers to tell them.
//
// A call that reads, changes or deletes runs as a Temporal local activity (patch localCalls,
// tideline 2026-12). It leaves no ActivityTaskScheduled/Started/Completed events, only one
// MARKER_RECORDED event named `core_local_activity` once it ends, written by the SDK's core:
//  - details `data`: a json/plain payload core writes itself (never through the payload codec)
//    with seq, attempt (the last one), activity_id, activity_type, complete_time, backoff and
//    original_schedule_time;
//  - details `result`: the answer, encrypted like every payload; not needed here;
//  - `failure`: how the last attempt failed (its details encrypted: decoded with the converter);
//  - the event's `userMetadata.summary`: the summary the workflow gave, step name or step key
//    (workflows/step-kinds.ts), encrypted too.
// The SDK (1.24) always uses the sequence number as a local activity's id (`"3"`), so a marker is
// matched to its step by summary and action (buildTimeline), not by activity id.
//
// Attempts retried inside the worker leave nothing but the final attempt number: the failures
// before it are not recorded. A backoff longer than the local retry threshold instead ends the
// marker with that failure and `backoff` set, the workflow sleeps on a timer, and schedules the
// activity again (new seq, same original schedule time, next attempt number): those markers are
// merged into one run here, and the earlier failure becomes the run's `retriedAfter`.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every SDK module */
import { z } from 'zod';
import type { temporal } from '@temporalio/proto';
import type { LoadedDataConverter } from '@temporalio/common';
import type { StepRecord } from '../contract/run-messages';
import type { ActivityRun } from './activity-run';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Failure = temporal.api.failure.v1.IFailure;

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

const timestampSchema = z.object({ seconds: z.number(), nanos: z.number().optional() }).nullish();

/** What core writes in a local activity marker's `data` (snake_case: core's serde names). */
const localMarkerDataSchema = z.object({
  seq: z.number().int(),
  attempt: z.number().int(),
  activity_id: z.string(),
  activity_type: z.string(),
  complete_time: timestampSchema,
  backoff: timestampSchema,
  original_schedule_time: timestampSchema,
});
type LocalMarkerData = z.infer<typeof localMarkerDataSchema>;

function timestampMs(time: z.infer<typeof timestampSchema>): number | undefined {
  return time ? time.seconds * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : undefined;
}

/** The marker's metadata, or undefined when the event is no local activity marker core wrote. */
function localMarkerData(event: HistoryEvent): LocalMarkerData | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) return undefined;
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    const parsed = localMarkerDataSchema.safeParse(JSON.parse(Buffer.from(data).toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // not JSON: a marker this parser does not know
  }
}

/** The summary the workflow gave the local activity (step name, else key), decrypted. */
async function summaryOf(event: HistoryEvent, converter: LoadedDataConverter): Promise<string | undefined> {
  const { decodeOptionalSinglePayload } =
    require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
  try {
    const summary = await decodeOptionalSinglePayload<unknown>(converter, event.userMetadata?.summary);
    return typeof summary === 'string' ? summary : undefined;
  } catch {
    return undefined; // not decryptable with these keys: the marker stays unattributed
  }
}

/** How a local activity's attempt ended, as its marker tells it. */
export interface LocalAttemptEnd {
  /** The SDK's sequence number, also the activity's id. */
  seq: number;
  type: string;
  /** The summary the workflow gave it (step name, else key); undefined when unreadable. */
  summary: string | undefined;
  /** The attempt that ended (1 for the first). */
  attempt: number;
  failure: Failure | undefined;
  /** After this failure the call is scheduled again once a backoff timer fires. */
  backingOff: boolean;
}

/** The end of a local activity's attempt, or undefined when the event is no such marker. */
export async function localAttemptEnd(
  event: HistoryEvent,
  converter: LoadedDataConverter,
): Promise<LocalAttemptEnd | undefined> {
  const data = localMarkerData(event);
  if (data === undefined) return undefined;
  const failure = event.markerRecordedEventAttributes?.failure ?? undefined;
  return {
    seq: data.seq,
    type: data.activity_type,
    summary: await summaryOf(event, converter),
    attempt: data.attempt,
    failure,
    backingOff: failure !== undefined && Boolean(data.backoff),
  };
}

function outcomeOf(failure: Failure | null | undefined): ActivityRun['outcome'] {
  if (!failure) return 'completed';
  if (failure.canceledFailureInfo) return 'cancelled';
  if (failure.timeoutFailureInfo) return 'timed-out';
  return 'failed';
}

/** Keys a run by what stays the same across the schedules of one local activity after backoff. */
function continuationKey(data: LocalMarkerData): string | undefined {
  const original = timestampMs(data.original_schedule_time);
  return original === undefined ? undefined : `${data.activity_type}@${original}`;
}

/**
 * Reads a history's events one by one (in history order) into the runs of its local activities:
 * `read` says whether an event is a local activity's marker, and gives the run it starts (keyed
 * by its sequence number), or none when it continued one after a backoff timer.
 */
export class LocalActivityReader {
  /** Runs whose last marker asked for a backoff timer: the next schedule continues them. */
  private readonly backingOff = new Map<string, ActivityRun>();

  constructor(
    private readonly converter: LoadedDataConverter,
    private readonly failureText: (failure: Failure) => Promise<string | undefined>,
  ) {}

  async read(
    event: HistoryEvent,
    eventAt: number,
  ): Promise<{ seq: number; started: ActivityRun | undefined } | undefined> {
    const data = localMarkerData(event);
    if (data === undefined) return undefined;
    return { seq: data.seq, started: await this.add(event, data, eventAt) };
  }

  private async add(
    event: HistoryEvent,
    data: LocalMarkerData,
    eventAt: number,
  ): Promise<ActivityRun | undefined> {
    const failure = event.markerRecordedEventAttributes?.failure;
    const failureText = failure ? await this.failureText(failure) : undefined;
    const key = continuationKey(data);
    const earlier = key === undefined ? undefined : this.backingOff.get(key);
    const endedAt = timestampMs(data.complete_time) ?? eventAt;
    const run: ActivityRun = earlier ?? {
      activityId: data.activity_id,
      type: data.activity_type,
      // Core's clock for both times; the schedule time can read later than the completion by a
      // few ms (it is taken when the workflow task completes), so the earlier one is the start.
      scheduledAt: Math.min(timestampMs(data.original_schedule_time) ?? endedAt, endedAt),
      attempts: 0,
      outcome: 'running',
      local: { seq: data.seq },
    };
    const summary = await summaryOf(event, this.converter);
    if (summary !== undefined && run.local) run.local.summary = summary;
    if (earlier?.failure !== undefined) run.retriedAfter = earlier.failure;
    run.attempts = data.attempt;
    run.endedAt = endedAt;
    delete run.failure;
    if (failureText !== undefined) run.failure = failureText;
    if (key !== undefined) this.backingOff.delete(key);
    if (failure && data.backoff && key !== undefined) {
      // Not over: a timer, then the next attempt. Failed, unless that schedule follows.
      run.outcome = 'failed';
      this.backingOff.set(key, run);
    } else run.outcome = outcomeOf(failure);
    return earlier === undefined ? run : undefined;
  }
}

/** The call steps a local activity's summary (step name, else key) and type can belong to. */
export function localCandidates(
  run: Pick<ActivityRun, 'type' | 'local'>,
  steps: readonly StepRecord[],
): StepRecord[] {
  const summary = run.local?.summary;
  if (summary === undefined) return [];
  return steps.filter(
    (step) =>
      step.kind === 'call' &&
      (step.name ?? step.key) === summary &&
      (step.action === undefined || step.action === run.type),
  );
}

/** Why a local activity is not under a step (no summary, or not exactly one step it names). */
export function localReason(run: ActivityRun, steps: readonly StepRecord[]): string {
  const summary = run.local?.summary;
  if (summary === undefined) return 'local activity without a readable summary to name its step';
  const named = localCandidates(run, steps).length;
  return named === 0
    ? `local activity "${summary}" names no call step of this run`
    : `local activity "${summary}" names ${named} call steps, not one`;
}
