// `tideline status` (and `run`) show what a running call or wait is doing from its pending
// activity: the activity whose id is the step's key. Numbered activities (runs recorded before
// activities carried their step key, and the run's lock request) are not attributed to a step.
import type { WorkflowHandle } from '@temporalio/client';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { observeRun } from '../../cli/run-observer';
import type { TemporalSession } from '../../cli/temporal';
import type { RunProgress, StepRecord } from '../../contract/run-messages';

const T0 = Date.UTC(2024, 5, 1, 12, 0, 0);
const converter = loadDataConverter();

function running(key: string, kind: string, startedAt: number): StepRecord {
  return { key, id: key.replace(/^.*\./, ''), kind, status: 'running', startedAt: T0 + startedAt };
}

/** A session and handle that answer describe and the progress query like Temporal would. */
function fakeRun(
  progress: RunProgress,
  pendingActivities: Record<string, unknown>[],
  pendingChildren: Record<string, unknown>[] = [],
): { session: TemporalSession; handle: WorkflowHandle } {
  const handle = {
    describe: () =>
      Promise.resolve({
        workflowId: 'run-1',
        runId: 'r1',
        taskQueue: 'q',
        status: { name: 'RUNNING' },
        raw: { pendingActivities, pendingChildren },
      }),
    query: () => Promise.resolve(progress),
  } as unknown as WorkflowHandle;
  const session = {
    client: {
      options: { loadedDataConverter: converter },
      withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
    },
  } as unknown as TemporalSession;
  return { session, handle };
}

const heartbeat = (details: unknown): { payloads: unknown[] } => ({
  payloads: [converter.payloadConverter.toPayload(details)],
});

test('pending activities are matched to running steps by activity id == step key', async () => {
  // Two foreach lanes and a compensation wait, started in an order the ids do not follow.
  const progress: RunProgress = {
    runbook: 'stop-dev-services',
    status: 'running',
    startedAt: T0,
    steps: [
      running('stop_each[1].stop', 'call', 100),
      running('stop_each[0].stop', 'call', 200),
      running('create/undo.gone', 'wait', 300),
    ],
  };
  const { session, handle } = fakeRun(progress, [
    { activityId: '1', activityType: { name: 'lock.request' }, attempt: 5 },
    {
      activityId: 'create/undo.gone',
      activityType: { name: 'wait.until' },
      attempt: 1,
      heartbeatDetails: heartbeat({ polls: 3, lastStatus: 'DELETING' }),
    },
    { activityId: 'stop_each[0].stop', activityType: { name: 'service.stop' }, attempt: 1 },
    {
      activityId: 'stop_each[1].stop',
      activityType: { name: 'service.stop' },
      attempt: 3,
      lastFailure: { message: 'HTTP 503', applicationFailureInfo: { type: 'CLOUD_UNAVAILABLE' } },
    },
  ]);
  const snapshot = await observeRun(session, handle);
  expect(snapshot.activities).toEqual({
    'stop_each[1].stop': { attempt: 3, lastFailure: 'HTTP 503' },
    'stop_each[0].stop': { attempt: 1 },
    'create/undo.gone': { attempt: 1, polls: 3, lastStatus: 'DELETING' },
  });
});

test('numbered activities of a run recorded before step keys are not attributed to its steps', async () => {
  const progress: RunProgress = {
    runbook: 'provision',
    status: 'running',
    startedAt: T0,
    steps: [running('ready', 'wait', 100)],
  };
  const { session, handle } = fakeRun(progress, [
    { activityId: '2', activityType: { name: 'wait.until' }, attempt: 2 },
  ]);
  const snapshot = await observeRun(session, handle);
  expect(snapshot.progress?.steps.map((s) => [s.key, s.status])).toEqual([['ready', 'running']]);
  expect(snapshot.activities).toEqual({});
});

test('a running runbook step shows its child run (workflow id `<run id>/<step key>`) once it has started', async () => {
  const progress: RunProgress = {
    runbook: 'parent',
    status: 'running',
    startedAt: T0,
    steps: [
      running('nested', 'runbook', 100),
      running('each[1].inner', 'runbook', 200),
      running('fleet', 'foreach', 300),
    ],
  };
  const { session, handle } = fakeRun(
    progress,
    [],
    [
      { workflowId: 'run-1/each[1].inner', workflowTypeName: 'runbookWorkflow' },
      { workflowId: 'run-1/fleet[100-199]', workflowTypeName: 'foreachBatchWorkflow' },
    ],
  );
  const snapshot = await observeRun(session, handle);
  expect(snapshot.childRuns).toEqual({
    'each[1].inner': 'run-1/each[1].inner',
    fleet: 'run-1/fleet[100-199]',
  });
});
