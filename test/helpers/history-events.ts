// Step records and event histories for the tests of `tideline history`'s join
// (test/unit/cli-history-*.test.ts): a small builder of proto-shaped history events, and step
// records and activity runs at offsets from one instant.
import type { temporal } from '@temporalio/proto';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import type { ActivityRun } from '../../cli/history-timeline';
import type { StepRecord } from '../../contract/run-messages';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export const T0 = Date.UTC(2024, 5, 1, 12, 0, 0);
export const RUN = 'provision-7f3a2c';
export const converter = loadDataConverter();

/** Event attributes as plain objects (numbers where the proto types say Long). */
type EventSketch = Record<string, unknown>;
type Add = (atMs: number, event: EventSketch) => number;

/** A tiny history builder: events get consecutive ids and the given offsets from T0. */
export function historyOf(build: (add: Add) => void): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  build((atMs, event) => {
    const eventId = events.length + 1;
    const at = T0 + atMs;
    events.push({
      ...event,
      eventId,
      eventTime: { seconds: Math.floor(at / 1000), nanos: (at % 1000) * 1e6 },
    } as unknown as HistoryEvent);
    return eventId;
  });
  return events;
}

export const failure = (message: string, type: string): temporal.api.failure.v1.IFailure => ({
  message,
  applicationFailureInfo: { type },
});

/** One activity: scheduled, its last attempt started (with the failure before it), and its end. */
export function activity(
  add: Add,
  activityId: string,
  type: string,
  from: number,
  to: number,
  end: { attempt?: number; retriedAfter?: string; failed?: string } = {},
): void {
  const scheduled = add(from, {
    activityTaskScheduledEventAttributes: { activityId, activityType: { name: type } },
  });
  add(from + 10, {
    activityTaskStartedEventAttributes: {
      scheduledEventId: scheduled,
      attempt: end.attempt ?? 1,
      ...(end.retriedAfter ? { lastFailure: failure(end.retriedAfter, 'CLOUD_UNAVAILABLE') } : {}),
    },
  });
  add(
    to,
    end.failed
      ? {
          activityTaskFailedEventAttributes: {
            scheduledEventId: scheduled,
            failure: failure(end.failed, 'CLOUD_CONFLICT'),
          },
        }
      : { activityTaskCompletedEventAttributes: { scheduledEventId: scheduled } },
  );
}

export function step(
  key: string,
  kind: string,
  status: StepRecord['status'],
  from: number,
  to?: number,
): StepRecord {
  const id = /[^.]+$/.exec(key)?.[0] ?? key;
  const record: StepRecord = { key, id, kind, status, startedAt: T0 + from };
  if (to !== undefined) record.endedAt = T0 + to;
  const undo = /^(.+)\/undo\./.exec(key);
  if (undo?.[1] !== undefined) record.compensates = undo[1];
  return record;
}

/** An activity as historyRuns gives it: scheduled and ended at offsets from T0. */
export function ran(
  activityId: string,
  type: string,
  [from, to]: [number, number?],
  extra: Partial<ActivityRun> = {},
): ActivityRun {
  const run: ActivityRun = { activityId, type, scheduledAt: T0 + from, attempts: 1, outcome: 'completed' };
  if (to !== undefined) run.endedAt = T0 + to;
  return { ...run, ...extra };
}
