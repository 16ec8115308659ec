// `tideline history`'s join of step records and event-history activities: by activity type and
// by the step's time window, so two steps of the same action each get their own activity.
import { activityTypes, buildTimeline, type ActivityRun } from '../../cli/history-timeline';
import { loadRunbookText } from '../../dsl/loader';
import type { StepRecord } from '../../workflows/messages';

const T0 = 1_700_000_000_000;

const definition = loadRunbookText(
  `
apiVersion: tideline/v1
name: timeline
description: Two reads, a wait and a sleep.
steps:
  - id: first
    call: project.list
  - id: nap
    sleep: 1s
  - id: second
    call: project.list
    compensate: { id: undo_read, call: project.list }
  - id: settle
    wait: project.list
`,
  'timeline.yaml',
);

function activity(type: string, scheduledAt: number, attempts: number, endedAt?: number): ActivityRun {
  return {
    activityId: String(scheduledAt),
    type,
    scheduledAt,
    attempts,
    outcome: endedAt ? 'completed' : 'running',
    ...(endedAt ? { endedAt } : {}),
  };
}

test('activityTypes maps every step id, compensation steps included, to its activity type', () => {
  expect([...activityTypes(definition).entries()]).toEqual([
    ['first', 'project.list'],
    ['second', 'project.list'],
    ['undo_read', 'project.list'],
    ['settle', 'wait.until'],
  ]);
});

test('steps get the activity scheduled within their own time window', () => {
  const steps: StepRecord[] = [
    { key: 'first', id: 'first', kind: 'call', status: 'done', startedAt: T0, endedAt: T0 + 5_000 },
    { key: 'nap', id: 'nap', kind: 'sleep', status: 'done', startedAt: T0 + 5_000, endedAt: T0 + 6_000 },
    { key: 'second', id: 'second', kind: 'call', status: 'done', startedAt: T0 + 6_000, endedAt: T0 + 7_000 },
    { key: 'settle', id: 'settle', kind: 'wait', status: 'running', startedAt: T0 + 7_000 },
  ];
  const runs = [
    activity('project.list', T0 + 6_020, 1, T0 + 6_900),
    activity('project.list', T0 + 20, 3, T0 + 4_900),
    activity('wait.until', T0 + 7_010, 0),
  ];
  const timeline = buildTimeline(steps, runs, activityTypes(definition));
  expect(
    timeline.map((step) => [step.key, step.activityType, step.attempts, step.activity?.scheduledAt]),
  ).toEqual([
    ['first', 'project.list', 3, T0 + 20],
    ['nap', undefined, undefined, undefined],
    ['second', 'project.list', 1, T0 + 6_020],
    ['settle', 'wait.until', 0, T0 + 7_010],
  ]);
});
