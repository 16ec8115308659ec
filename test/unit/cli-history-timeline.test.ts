// `tideline history`'s join of step records and the event history: activities belong to the step
// whose key is their activity id, child runs to the step whose key ends their workflow id.
import { buildTimeline, historyRuns, type RunHistory } from '../../cli/history-timeline';
import { historyJson, renderHistory, type RunHistoryView } from '../../cli/output/history-view';
import { formatClock, PLAIN_STYLE } from '../../cli/output/style';
import { orderedSteps } from '../../cli/run-observer';
import type { StepRecord } from '../../contract/run-messages';
import { activity, converter, failure, historyOf, ran, RUN, step, T0 } from '../helpers/history-events';

describe('historyRuns', () => {
  test('reads each activity with its attempts, the failure before its last attempt, and how it ended', async () => {
    const events = historyOf((add) => {
      activity(add, 'create', 'service.create', 100, 2_000, { attempt: 3, retriedAfter: 'HTTP 503' });
      activity(add, 'attach', 'service.attachToVpc', 2_100, 2_400, { attempt: 2, failed: 'VPC is gone' });
      const child = add(2_500, {
        startChildWorkflowExecutionInitiatedEventAttributes: { workflowId: `${RUN}/nested` },
      });
      add(2_600, {
        childWorkflowExecutionFailedEventAttributes: {
          initiatedEventId: child,
          failure: failure('step x failed', 'RUNBOOK_FAILED'),
        },
      });
    });
    const history = await historyRuns(events, converter);
    expect(history.activities).toEqual([
      expect.objectContaining({
        activityId: 'create',
        type: 'service.create',
        attempts: 3,
        outcome: 'completed',
        retriedAfter: 'HTTP 503',
        scheduledAt: T0 + 100,
        endedAt: T0 + 2_000,
      }),
      expect.objectContaining({
        activityId: 'attach',
        attempts: 2,
        outcome: 'failed',
        failure: 'VPC is gone',
      }),
    ]);
    expect(history.activities[0]?.failure).toBeUndefined();
    expect(history.children).toEqual([
      {
        workflowId: `${RUN}/nested`,
        startedAt: T0 + 2_500,
        endedAt: T0 + 2_600,
        outcome: 'failed',
        failure: 'step x failed',
      },
    ]);
  });
});

describe('buildTimeline: activity id == step key', () => {
  // A foreach with two lanes and a failed iteration, a parallel step, a child runbook and the
  // compensation of `create`. The lanes' activities are scheduled out of step order and overlap in
  // time, which is where matching by action and time window went wrong.
  const records: StepRecord[] = [
    step('create', 'call', 'compensated', 0, 9_000),
    step('stop_each', 'foreach', 'failed', 1_000, 5_000),
    step('stop_each[0].stop', 'call', 'done', 1_000, 3_000),
    step('stop_each[1].stop', 'call', 'failed', 1_000, 4_000),
    step('both', 'parallel', 'done', 500, 900),
    step('both.left.ready', 'wait', 'done', 500, 900),
    step('nested', 'runbook', 'done', 400, 500),
    step('create/undo.delete', 'call', 'done', 6_000, 8_000),
    step('create/undo.gone', 'wait', 'running', 8_000),
  ];
  const history: RunHistory = {
    activities: [
      ran('1', 'lock.request', [-50, -40]),
      ran('create', 'service.create', [0, 300], { attempts: 2, retriedAfter: 'HTTP 503' }),
      ran('both.left.ready', 'wait.until', [500, 900]),
      ran('stop_each[1].stop', 'service.stop', [1_000, 4_000], {
        attempts: 4,
        outcome: 'failed',
        failure: 'HTTP 409',
      }),
      ran('stop_each[0].stop', 'service.stop', [1_001, 3_000]),
      ran('create/undo.delete', 'service.delete', [6_000, 8_000]),
      ran('create/undo.gone', 'wait.until', [8_000], { attempts: 0, outcome: 'running' }),
    ],
    children: [
      { workflowId: `${RUN}/nested`, startedAt: T0 + 400, endedAt: T0 + 500, outcome: 'completed' },
      { workflowId: `other-run/nested`, startedAt: T0 + 400, outcome: 'running' },
    ],
  };

  test('each step gets exactly the activity or child run named after it', () => {
    const timeline = buildTimeline(orderedSteps(records), [{ workflowId: RUN, runs: history }]);
    expect(
      timeline.steps.map((s) => [s.key, s.activity?.type ?? s.child?.workflowId ?? null, s.attempts ?? null]),
    ).toEqual([
      ['create', 'service.create', 2],
      ['create/undo.delete', 'service.delete', 1],
      ['create/undo.gone', 'wait.until', 0],
      ['stop_each', null, null],
      ['stop_each[0].stop', 'service.stop', 1],
      ['stop_each[1].stop', 'service.stop', 4],
      ['both', null, null],
      ['both.left.ready', 'wait.until', 1],
      ['nested', `${RUN}/nested`, null],
    ]);
    expect(timeline.steps.find((s) => s.key === 'stop_each[1].stop')?.activity?.failure).toBe('HTTP 409');
    expect(timeline.otherActivities).toEqual([
      expect.objectContaining({
        activityId: '1',
        type: 'lock.request',
        reason: 'service locking, not a step',
      }),
    ]);
  });

  test('the text view: attempts per step, the last retry, the failure, what an undo undoes, the child run', () => {
    const timeline = buildTimeline(orderedSteps(records), [{ workflowId: RUN, runs: history }]);
    const view: RunHistoryView = {
      workflowId: RUN,
      runId: 'r1',
      runbook: 'provision',
      status: 'compensating',
      startedAt: T0 - 100,
      failure: { stepKey: 'stop_each[1].stop', type: 'CLOUD_CONFLICT', message: 'HTTP 409' },
      timeline: {
        ...timeline,
        steps: timeline.steps.map((s) =>
          s.key === 'stop_each[1].stop'
            ? { ...s, error: { type: 'CLOUD_CONFLICT', message: 'HTTP 409' } }
            : s,
        ),
      },
      events: 42,
    };
    const at = (ms: number): string => formatClock(T0 + ms);
    expect(renderHistory(view, PLAIN_STYLE, T0 + 9_000)).toEqual([
      'provision · run provision-7f3a2c · compensating · 42 history events',
      'STEP                  KIND      STATUS       START     DURATION  ATTEMPTS  NOTE',
      `create                call      compensated  ${at(0)}            2         last retry after: HTTP 503`,
      `  create/undo.delete  call      done         ${at(6_000)}  2.0s      1         undoes create`,
      `  create/undo.gone    wait      running      ${at(8_000)}  running   …         undoes create`,
      `stop_each             foreach   failed       ${at(1_000)}  4.0s`,
      `  stop_each[0].stop   call      done         ${at(1_000)}  2.0s      1`,
      `  stop_each[1].stop   call      failed       ${at(1_000)}  3.0s      4         CLOUD_CONFLICT: HTTP 409`,
      `both                  parallel  done         ${at(500)}  400ms`,
      `    both.left.ready   wait      done         ${at(500)}  400ms     1`,
      `nested                runbook   done         ${at(400)}  100ms               child run ${RUN}/nested`,
      '',
      'activities outside the steps (not attributed to a step):',
      'ACTIVITY  TYPE          OUTCOME    START     DURATION  ATTEMPTS  NOTE',
      `1         lock.request  completed  ${formatClock(T0 - 50)}  10ms      1         service locking, not a step`,
      'failed at stop_each[1].stop: CLOUD_CONFLICT: HTTP 409',
    ]);
    const json = historyJson(view) as { steps: { key: string; activity: { activityId: string } | null }[] };
    expect(json.steps.find((s) => s.key === 'create/undo.delete')?.activity?.activityId).toBe(
      'create/undo.delete',
    );
  });
});
