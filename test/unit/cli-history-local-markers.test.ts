// `tideline history` and local activities (patch localCalls): a call run as a local activity is
// one `core_local_activity` marker whose id is the SDK's sequence number, joined to its step by
// summary (step name, else key) and action; a recorded history, and markers built here.
import { readFileSync } from 'node:fs';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { buildTimeline, historyRuns } from '../../cli/history-timeline';
import { localAttemptEnd, LocalActivityReader } from '../../cli/local-activity-markers';
import { backoffStates } from '../../cli/local-call-progress';
import { historyJson, renderHistory } from '../../cli/output/history-view';
import { PLAIN_STYLE } from '../../cli/output/style';
import type { StepRecord } from '../../workflows/messages';
import { createDataConverter } from '../../worker/codec';
import { converter, failure, historyOf, RUN, step, T0, type HistoryEvent } from '../helpers/history-events';
import { fixtureKeyRing, historyFile, historyFromObject } from '../helpers/history-recorder';

const named = (record: StepRecord, name: string | undefined, action: string): StepRecord => ({
  ...record,
  ...(name !== undefined && { name }),
  action,
});

const json = (value: unknown): { metadata: { encoding: Buffer }; data: Buffer } => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(value)),
});

/** A resize whose second attempt failed with HTTP 503 and left a 30 s backoff (a timer) behind. */
function resizeFailedBeforeBackoff(): Record<string, unknown> {
  return marker(1, 'service.resize', 'Resize', [0, 390], {
    attempt: 2,
    failed: 'HTTP 503',
    backoffMs: 30_000,
  });
}

/** A marker as core writes it; times in ms from T0 (core's seconds/nanos). */
function marker(
  seq: number,
  type: string,
  summary: string | undefined,
  [scheduled, completed]: [number, number],
  end: { attempt?: number; failed?: string; cancelled?: true; backoffMs?: number } = {},
): Record<string, unknown> {
  const time = (ms: number): { seconds: number; nanos: number } => ({
    seconds: Math.floor((T0 + ms) / 1000),
    nanos: ((T0 + ms) % 1000) * 1e6,
  });
  const data = {
    seq,
    attempt: end.attempt ?? 1,
    activity_id: String(seq),
    activity_type: type,
    complete_time: time(completed),
    backoff: end.backoffMs === undefined ? null : { seconds: end.backoffMs / 1000, nanos: 0 },
    original_schedule_time: time(scheduled),
  };
  const failed = end.cancelled
    ? { message: 'cancelled', canceledFailureInfo: {} }
    : end.failed !== undefined
      ? failure(end.failed, 'CLOUD_UNAVAILABLE')
      : undefined;
  return {
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      details: { data: { payloads: [json(data)] } },
      ...(failed && { failure: failed }),
    },
    ...(summary !== undefined && { userMetadata: { summary: json(summary) } }),
  };
}

describe('local activity markers', () => {
  test('a recorded rolled-back provisioning: the failed attach and the undo delete join their steps', async () => {
    const file = historyFile('provision-local-rolled-back.2026-12');
    const events = historyFromObject(JSON.parse(readFileSync(file, 'utf8')) as object)
      .events as HistoryEvent[];
    const keyed = loadDataConverter(createDataConverter(fixtureKeyRing()));
    const runs = await historyRuns(events, keyed);
    const locals = runs.activities.filter((run) => run.local !== undefined);
    expect(locals).toEqual([
      expect.objectContaining({ type: 'service.attachToVpc', outcome: 'failed', attempts: 1 }),
      expect.objectContaining({ type: 'service.delete', outcome: 'completed', attempts: 1 }),
    ]);
    // The failure is decrypted like a normal activity's, and the summary names the step.
    expect(locals[0]?.failure).toMatch(/\S/);
    expect(locals[0]?.failure).not.toBe('failure details could not be decrypted');
    expect(locals.map((run) => run.local?.summary)).toEqual([
      'Attach to the VPC',
      'create/undo.delete_service',
    ]);

    const records = [
      named(step('create', 'call', 'compensated', 0, 900), 'Create the service', 'service.create'),
      named(step('create/undo.delete_service', 'call', 'done', 700, 800), undefined, 'service.delete'),
      named(step('attach', 'call', 'failed', 500, 600), 'Attach to the VPC', 'service.attachToVpc'),
    ];
    const timeline = buildTimeline(records, [{ workflowId: RUN, runs }]);
    expect(timeline.steps.map((s) => [s.key, s.activity?.activityId, s.activity?.type, s.attempts])).toEqual([
      ['create', 'create', 'service.create', 1],
      ['create/undo.delete_service', 'create/undo.delete_service', 'service.delete', 1],
      ['attach', 'attach', 'service.attachToVpc', 1],
    ]);
    expect(timeline.otherActivities.filter((run) => run.local)).toEqual([]);
  });

  test('schedules after a backoff timer are one run: attempts go on, the failure before is kept', async () => {
    const events = historyOf((add) => {
      add(400, resizeFailedBeforeBackoff());
      add(30_400, { timerFiredEventAttributes: { timerId: '1' } });
      add(30_600, marker(2, 'service.resize', 'Resize', [0, 30_550], { attempt: 3 }));
      add(31_000, marker(3, 'service.get', 'Read', [30_700, 30_900], { cancelled: true }));
    });
    const { activities } = await historyRuns(events, converter);
    expect(activities).toEqual([
      {
        activityId: '1',
        type: 'service.resize',
        scheduledAt: T0,
        endedAt: T0 + 30_550,
        attempts: 3,
        outcome: 'completed',
        retriedAfter: 'HTTP 503',
        local: { seq: 1, summary: 'Resize' },
      },
      expect.objectContaining({ type: 'service.get', outcome: 'cancelled', attempts: 1 }),
    ]);
  });

  test('a run that ended during the backoff: the local call failed with its last failure', async () => {
    const events = historyOf((add) => {
      add(400, resizeFailedBeforeBackoff());
    });
    const [run] = (await historyRuns(events, converter)).activities;
    expect(run).toMatchObject({ outcome: 'failed', attempts: 2, failure: 'HTTP 503' });
  });

  test('a summary several call steps share, or none names, stays outside the steps with why', async () => {
    const events = historyOf((add) => {
      add(100, marker(1, 'service.stop', 'Stop it', [0, 90]));
      add(200, marker(2, 'service.stop', 'Stop it', [0, 190]));
      add(300, marker(3, 'service.get', undefined, [200, 290]));
      add(400, marker(4, 'service.get', 'gone', [300, 390]));
    });
    const runs = await historyRuns(events, converter);
    const records = [
      named(step('each', 'foreach', 'done', 0, 200), undefined, 'service.stop'),
      named(step('each[0].stop', 'call', 'done', 0, 100), 'Stop it', 'service.stop'),
      named(step('each[1].stop', 'call', 'done', 0, 200), 'Stop it', 'service.stop'),
    ];
    const timeline = buildTimeline(records, [{ workflowId: RUN, runs }]);
    expect(timeline.steps.every((s) => s.activity === undefined)).toBe(true);
    expect(timeline.otherActivities.map((run) => [run.activityId, run.reason])).toEqual([
      ['1', 'local activity "Stop it" names 2 call steps, not one'],
      ['2', 'local activity "Stop it" names 2 call steps, not one'],
      ['3', 'local activity without a readable summary to name its step'],
      ['4', 'local activity "gone" names no call step of this run'],
    ]);
    const view = {
      workflowId: RUN,
      runId: 'r1',
      runbook: 'stop',
      status: 'succeeded',
      startedAt: T0,
      endedAt: T0 + 400,
      failure: null,
      timeline,
      events: events.length,
    };
    expect(renderHistory(view, PLAIN_STYLE, T0 + 400).join('\n')).toContain(
      'local activity "Stop it" names 2 call steps, not one',
    );
    expect((historyJson(view) as { otherActivities: { local: boolean }[] }).otherActivities[0]?.local).toBe(
      true,
    );
  });

  test('other markers (patches) are no local activity', async () => {
    const [patch] = historyOf((add) => {
      add(0, { markerRecordedEventAttributes: { markerName: 'core_patch', details: {} } });
    });
    if (patch === undefined) throw new Error('no event');
    expect(await localAttemptEnd(patch, converter)).toBeUndefined();
    const reader = new LocalActivityReader(converter, () => Promise.resolve(undefined));
    expect(await reader.read(patch, T0)).toBeUndefined();
  });
});

describe('a running local call: attempt and last failure from its backoff marker', () => {
  const running = [
    named(step('resize', 'call', 'running', 0), 'Resize', 'service.resize'),
    named(step('tag', 'call', 'running', 0), undefined, 'service.setEnvironment'),
  ];

  test('the newest marker of a call with a backoff gives the next attempt and the failure', async () => {
    const newestFirst = historyOf((add) => {
      add(
        400,
        marker(1, 'service.resize', 'Resize', [0, 390], {
          attempt: 5,
          failed: 'HTTP 503',
          backoffMs: 16_000,
        }),
      );
      add(
        500,
        marker(2, 'service.setEnvironment', 'tag', [0, 490], {
          attempt: 2,
          failed: 'HTTP 409',
          backoffMs: 12_000,
        }),
      );
      // tag's newest marker (history order: later) ended its attempts without a backoff.
      add(
        30_000,
        marker(3, 'service.setEnvironment', 'tag', [0, 29_000], { attempt: 3, failed: 'HTTP 409' }),
      );
    }).reverse();
    expect(await backoffStates(newestFirst, running, converter)).toEqual({
      resize: { attempt: 6, lastFailure: 'HTTP 503' },
    });
  });

  test('a call retried inside the worker leaves nothing to show until it ends', async () => {
    const newestFirst = historyOf((add) => {
      add(400, marker(1, 'service.resize', 'Resize', [0, 390], { attempt: 3 }));
    }).reverse();
    expect(await backoffStates(newestFirst, running, converter)).toEqual({});
  });
});
