// `tideline history` for runs the simple join does not cover alone: runs recorded before
// activities carried their step key (numbered activities stay unattributed, listed apart), and
// fleet-sized foreach loops whose iterations ran in batch child workflows.
import {
  buildTimeline,
  foreachBatches,
  historyRuns,
  type ChildRun,
  type HistorySource,
} from '../../cli/history-timeline';
import { renderHistory, type RunHistoryView } from '../../cli/output/history-view';
import { formatClock, PLAIN_STYLE } from '../../cli/output/style';
import type { StepRecord } from '../../contract/run-messages';
import { activity, converter, historyOf, ran, RUN, step, T0 } from '../helpers/history-events';

describe('runs recorded before activities carried their step key', () => {
  const records: StepRecord[] = [
    step('create', 'call', 'done', 0, 2_000),
    step('ready', 'wait', 'done', 2_000, 5_000),
    step('prod', 'call', 'done', 5_000, 6_000),
  ];

  test('their numbered activities are listed outside the steps, not matched by guesswork', async () => {
    const events = historyOf((add) => {
      activity(add, '1', 'service.create', 100, 1_900, { attempt: 2, retriedAfter: 'HTTP 503' });
      activity(add, '2', 'wait.until', 2_050, 4_900);
      activity(add, '3', 'service.setEnvironment', 5_050, 5_900);
    });
    const timeline = buildTimeline(records, [
      { workflowId: RUN, runs: await historyRuns(events, converter) },
    ]);
    expect(timeline.steps.every((s) => s.activity === undefined && s.attempts === undefined)).toBe(true);
    expect(
      timeline.otherActivities.map((a) => [a.activityId, a.type, a.attempts, a.retriedAfter ?? null]),
    ).toEqual([
      ['1', 'service.create', 2, 'HTTP 503'],
      ['2', 'wait.until', 1, null],
      ['3', 'service.setEnvironment', 1, null],
    ]);
    expect(timeline.otherActivities[0]?.reason).toBe(
      'numbered activity id: scheduled before activities carried their step key (tideline 2026-11)',
    );
    const lines = renderHistory(
      {
        workflowId: RUN,
        runId: 'r',
        runbook: 'p',
        status: 'succeeded',
        startedAt: T0,
        endedAt: T0 + 6_000,
        failure: null,
        timeline,
        events: 20,
      },
      PLAIN_STYLE,
      T0 + 6_000,
    );
    expect(lines).toContain(
      `1         service.create          completed  ${formatClock(T0 + 100)}  1.8s      2         numbered activity id: scheduled before activities carried their step key (tideline 2026-11) · last retry after: HTTP 503`,
    );
  });

  test('a run that crossed the upgrade: numbered activities apart, keyed ones under their steps', () => {
    const activities = [
      ran('1', 'service.create', [100, 1_900]),
      ran('ready', 'wait.until', [2_050, 4_900]),
      ran('prod', 'service.setEnvironment', [5_050, 5_900]),
    ];
    const timeline = buildTimeline(records, [{ workflowId: RUN, runs: { activities, children: [] } }]);
    expect(timeline.steps.map((s) => [s.key, s.activity?.activityId ?? null])).toEqual([
      ['create', null],
      ['ready', 'ready'],
      ['prod', 'prod'],
    ]);
    expect(timeline.otherActivities.map((a) => a.activityId)).toEqual(['1']);
  });
});

test('a fleet-sized foreach: iterations find their activities in the batch runs, which the foreach names', () => {
  const records: StepRecord[] = [
    step('stop_each', 'foreach', 'done', 0, 9_000),
    step('stop_each[99].stop', 'call', 'done', 1_000, 2_000),
    step('stop_each[100].stop', 'call', 'done', 3_000, 4_000),
    step('stop_each[100].nested', 'runbook', 'done', 4_000, 5_000),
  ];
  const batch = (range: string): ChildRun => ({
    workflowId: `${RUN}/stop_each[${range}]`,
    startedAt: T0,
    outcome: 'completed',
  });
  const parent: HistorySource = {
    workflowId: RUN,
    runs: { activities: [ran('1', 'lock.request', [0, 10])], children: [batch('0-99'), batch('100-150')] },
  };
  expect(foreachBatches(parent, records).map((b) => b.workflowId)).toEqual([
    `${RUN}/stop_each[0-99]`,
    `${RUN}/stop_each[100-150]`,
  ]);
  const second = `${RUN}/stop_each[100-150]`;
  const timeline = buildTimeline(records, [
    parent,
    {
      workflowId: `${RUN}/stop_each[0-99]`,
      runs: { activities: [ran('stop_each[99].stop', 'service.stop', [1_000, 2_000])], children: [] },
    },
    {
      workflowId: second,
      runs: {
        activities: [ran('stop_each[100].stop', 'service.stop', [3_000, 4_000], { attempts: 2 })],
        children: [
          { workflowId: `${second}/stop_each[100].nested`, startedAt: T0 + 4_000, outcome: 'completed' },
        ],
      },
    },
  ]);
  expect(
    timeline.steps.map((s) => [
      s.key,
      s.attempts ?? null,
      s.child?.workflowId ?? null,
      s.batches?.length ?? null,
    ]),
  ).toEqual([
    ['stop_each', null, null, 2],
    ['stop_each[99].stop', 1, null, null],
    ['stop_each[100].stop', 2, null, null],
    ['stop_each[100].nested', null, `${second}/stop_each[100].nested`, null],
  ]);
  const view: RunHistoryView = {
    workflowId: RUN,
    runId: 'r',
    runbook: 'stop-dev-services',
    status: 'succeeded',
    startedAt: T0,
    endedAt: T0 + 9_000,
    failure: null,
    timeline,
    events: 30,
  };
  expect(renderHistory(view, PLAIN_STYLE, T0 + 9_000)[2]).toBe(
    `stop_each                foreach  done    ${formatClock(T0)}  9.0s                batch runs ${RUN}/stop_each[0-99] … ${RUN}/stop_each[100-150] (2)`,
  );
});
