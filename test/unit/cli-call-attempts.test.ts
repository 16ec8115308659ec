// `tideline history` and `run`'s progress for calls run as local activities: attempts come from
// the step's record (`callAttempts`, reported by the call itself) and failed attempts from the
// failures the history keeps, which name their step and attempt in tideline's own details
// (contract/call-attempts.ts). Nothing is read from the SDK's own marker data.
import { readFileSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { buildTimeline, historyRuns } from '../../cli/history-timeline';
import { backoffStates } from '../../cli/local-call-progress';
import { historyJson, renderHistory } from '../../cli/output/history-view';
import { PLAIN_STYLE } from '../../cli/output/style';
import { callAttemptDetail } from '../../contract/call-attempts';
import type { StepRecord } from '../../contract/run-messages';
import { createDataConverter } from '../../worker/codec';
import { converter, historyOf, RUN, step, T0, type HistoryEvent } from '../helpers/history-events';
import { fixtureKeyRing, historyFile, historyFromObject } from '../helpers/history-recorder';

const call = (record: StepRecord, action: string, callAttempts?: number): StepRecord => ({
  ...record,
  action,
  ...(callAttempts !== undefined && { callAttempts }),
});

/** A marker event whose failure is a call's, naming `step` and `attempt` unless `untagged`. */
function failedCall(
  stepKey: string,
  attempt: number,
  message: string,
  untagged = false,
): Record<string, unknown> {
  const error = ApplicationFailure.create({
    type: 'CLOUD_API_SERVER_ERROR',
    message,
    details: [
      { action: 'service.resize', status: 503 },
      ...(untagged ? [] : [callAttemptDetail({ step: stepKey, attempt })]),
    ],
  });
  const failure = converter.failureConverter.errorToFailure(error, converter.payloadConverter);
  return { markerRecordedEventAttributes: { markerName: 'any-marker', details: {}, failure } };
}

describe('failed attempts in the history', () => {
  test('a failure naming its step and attempt is kept; other markers and untagged failures are not', async () => {
    const events = historyOf((add) => {
      add(0, { markerRecordedEventAttributes: { markerName: 'core_patch', details: {} } });
      add(400, failedCall('resize', 2, 'HTTP 503'));
      add(500, failedCall('resize', 1, 'from a run before attempts were recorded', true));
    });
    const runs = await historyRuns(events, converter);
    expect(runs.failedAttempts).toEqual([{ step: 'resize', attempt: 2, message: 'HTTP 503', at: T0 + 400 }]);
    expect(runs.activities).toEqual([]);
  });

  test('a call that took three attempts: its step shows them and the failure before the last', async () => {
    const events = historyOf((add) => {
      add(400, failedCall('resize', 2, 'HTTP 503'));
    });
    const records = [
      call(step('resize', 'call', 'done', 0, 30_600), 'service.resize', 3),
      call(step('look', 'call', 'done', 30_600, 30_700), 'service.get', 1),
    ];
    const timeline = buildTimeline(records, [
      { workflowId: RUN, runs: await historyRuns(events, converter) },
    ]);
    const [resize, look] = timeline.steps;
    expect(resize?.attempts).toBe(3);
    expect(resize?.activity).toEqual({
      activityId: 'resize',
      type: 'service.resize',
      scheduledAt: T0,
      endedAt: T0 + 30_600,
      attempts: 3,
      outcome: 'completed',
      retriedAfter: 'HTTP 503',
      local: true,
    });
    expect(look?.activity).toMatchObject({ attempts: 1, outcome: 'completed' });
    expect(look?.activity?.retriedAfter).toBeUndefined();
    const view = {
      workflowId: RUN,
      runId: 'r1',
      runbook: 'resize',
      status: 'succeeded',
      startedAt: T0,
      endedAt: T0 + 30_700,
      failure: null,
      timeline,
      events: events.length,
    };
    expect(renderHistory(view, PLAIN_STYLE, T0 + 30_700).join('\n')).toContain('last retry after: HTTP 503');
    const json = historyJson(view) as { steps: { attempts: number; activity: { local: boolean } }[] };
    expect(json.steps[0]).toMatchObject({ attempts: 3, activity: { local: true } });
  });

  test('a failed call: its last failure is the step error, the one before is what it was retried after', async () => {
    const events = historyOf((add) => {
      add(400, failedCall('attach', 1, 'HTTP 503'));
      add(20_400, failedCall('attach', 2, 'HTTP 409'));
    });
    const failed: StepRecord = {
      ...call(step('attach', 'call', 'failed', 0, 20_500), 'service.attachToVpc', 2),
      error: { type: 'CLOUD_API_CONFLICT', message: 'HTTP 409' },
    };
    const timeline = buildTimeline(
      [failed],
      [{ workflowId: RUN, runs: await historyRuns(events, converter) }],
    );
    expect(timeline.steps[0]?.activity).toMatchObject({
      outcome: 'failed',
      attempts: 2,
      failure: 'HTTP 409',
      retriedAfter: 'HTTP 503',
    });
  });

  test('a timed-out call and a cancelled one say so', () => {
    const timedOut: StepRecord = {
      ...call(step('slow', 'call', 'failed', 0, 100), 'service.get', 1),
      error: { type: 'TIMEOUT_FAILURE', message: 'activity timed out' },
    };
    const cancelled: StepRecord = {
      ...call(step('stop', 'call', 'failed', 0, 100), 'service.stop', 1),
      error: { type: 'CANCELLED', message: 'the run was cancelled' },
    };
    const timeline = buildTimeline(
      [timedOut, cancelled],
      [{ workflowId: RUN, runs: { activities: [], children: [] } }],
    );
    expect(timeline.steps.map((s) => s.activity?.outcome)).toEqual(['timed-out', 'cancelled']);
  });

  test('a run recorded before calls reported attempts: its local calls show none, and nothing is misattributed', async () => {
    const file = historyFile('provision-local-rolled-back.2026-12');
    const events = historyFromObject(JSON.parse(readFileSync(file, 'utf8')) as object)
      .events as HistoryEvent[];
    const keyed = loadDataConverter(createDataConverter(fixtureKeyRing()));
    const runs = await historyRuns(events, keyed);
    expect(runs.failedAttempts).toEqual([]);
    const records = [
      call(step('create', 'call', 'compensated', 0, 900), 'service.create'),
      call(step('attach', 'call', 'failed', 500, 600), 'service.attachToVpc'),
    ];
    const timeline = buildTimeline(records, [{ workflowId: RUN, runs }]);
    // The create is an activity task, known by its step key; the attach left only a marker.
    expect(timeline.steps.map((s) => [s.key, s.activity?.type, s.attempts])).toEqual([
      ['create', 'service.create', 1],
      ['attach', undefined, undefined],
    ]);
    expect(timeline.otherActivities.filter((run) => run.local)).toEqual([]);
  });
});

test('a recorded rolled-back provisioning of this release: the failed local attach names its step and attempt', async () => {
  const file = historyFile('provision-local-rolled-back.2027-04');
  const events = historyFromObject(JSON.parse(readFileSync(file, 'utf8')) as object).events as HistoryEvent[];
  const keyed = loadDataConverter(createDataConverter(fixtureKeyRing()));
  const runs = await historyRuns(events, keyed);
  expect(runs.failedAttempts).toEqual([
    { step: 'attach', attempt: 1, message: expect.stringMatching(/404/), at: expect.any(Number) },
  ]);
});

describe('a running local call: attempt and last failure from its newest failed attempt', () => {
  const running = [
    call(step('resize', 'call', 'running', 0), 'service.resize'),
    call(step('tag', 'call', 'running', 10_000), 'service.setEnvironment'),
  ];

  test('the newest failed attempt of a running call since it started gives the next attempt', async () => {
    const newestFirst = historyOf((add) => {
      add(400, failedCall('resize', 4, 'HTTP 502'));
      add(500, failedCall('tag', 2, 'HTTP 409 from a run of the step before a retry'));
      add(16_400, failedCall('resize', 5, 'HTTP 503'));
      add(17_000, failedCall('done-step', 1, 'not running'));
    }).reverse();
    expect(await backoffStates(newestFirst, running, converter)).toEqual({
      resize: { attempt: 6, lastFailure: 'HTTP 503' },
    });
  });

  test('a call retried inside the worker leaves nothing to show until it ends', async () => {
    const newestFirst = historyOf((add) => {
      add(400, { markerRecordedEventAttributes: { markerName: 'any-marker', details: {} } });
    }).reverse();
    expect(await backoffStates(newestFirst, running, converter)).toEqual({});
  });
});
