// Recovery after a disruption, read from the runs' histories: for each disruption at time K and
// each run in flight at K, the time from K to the run's next sign of progress — an activity
// attempt or workflow task started, or a result recorded. After a worker SIGKILL that is the
// moment a new worker took the run's work over (the server first lets the dead worker's tasks time
// out: 30 s for a wait's heartbeat, 10 s for a workflow task, a create's or change's start-to-close
// timeout for a call); after a dev-server restart it is when the run moved again.
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { timestampMillis } from '../../contract/proto-time';

const { EventType } = temporal.api.enums.v1;

const PROGRESS = new Set<number>([
  EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
]);

/** Epoch ms of each progress event of a run, ascending, and when it started and closed. */
export interface RunTimeline {
  startedAt: number;
  closedAt: number | undefined;
  progressAt: number[];
  /** Each activity: its type, when it was scheduled and when its result was recorded. */
  activities: Array<{ type: string; scheduledAt: number; closedAt: number | undefined }>;
}

/** One run's recovery from one disruption, and what the run was doing at that moment. */
export interface RecoverySample {
  ms: number;
  /** The activity in flight (e.g. `wait.until`, `service.create`), or `workflow task`. */
  doing: string;
}

export async function runTimeline(handle: WorkflowHandle): Promise<RunTimeline> {
  const events = (await handle.fetchHistory()).events ?? [];
  const first = events[0];
  const closing = events.find(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED ||
      e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  );
  const closedActivities = new Map<string, number>();
  for (const e of events) {
    const attributes =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (attributes) closedActivities.set(String(attributes.scheduledEventId), timestampMillis(e.eventTime));
  }
  return {
    startedAt: timestampMillis(first?.eventTime),
    closedAt: closing ? timestampMillis(closing.eventTime) : undefined,
    activities: events
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => ({
        type: e.activityTaskScheduledEventAttributes?.activityType?.name ?? 'activity',
        scheduledAt: timestampMillis(e.eventTime),
        closedAt: closedActivities.get(String(e.eventId)),
      })),
    progressAt: events
      .filter((e) => PROGRESS.has(e.eventType ?? 0))
      .map((e) => timestampMillis(e.eventTime))
      .sort((a, b) => a - b),
  };
}

/** Recovery samples, one per disruption and run in flight at that moment. */
export function recoverySamples(
  disruptions: readonly number[],
  timelines: readonly RunTimeline[],
): RecoverySample[] {
  const samples: RecoverySample[] = [];
  for (const at of disruptions) {
    for (const run of timelines) {
      const inFlight = run.startedAt < at && (run.closedAt === undefined || run.closedAt > at);
      if (!inFlight) continue;
      const next = run.progressAt.find((time) => time > at);
      if (next === undefined) continue;
      const pending = run.activities.find(
        (a) => a.scheduledAt < at && (a.closedAt === undefined || a.closedAt > at),
      );
      samples.push({ ms: next - at, doing: pending?.type ?? 'workflow task' });
    }
  }
  return samples;
}
