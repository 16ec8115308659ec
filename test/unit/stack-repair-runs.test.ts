// The watching of repair runs, with a scripted driver in place of Temporal: every repair is
// prepared and started in order; a start the caller refuses is reported as not started; the runs
// are read until each has ended (a refusal told from any other failure) or stopped for a person or
// an operator; what fails while preparing ends the whole reconcile; an interruption leaves the
// runs still open detached.
import type { WorkflowHandle } from '@temporalio/client';
import type { RunProgress } from '../../contract/run-messages';
import { runRepairs, type EndedRun, type RepairRun, type RunState } from '../../stack/repair-runs';
import type { PlannedRepair } from '../../state/repair-plan';

function repair(service: string): PlannedRepair {
  return {
    runbook: 'enable-pooler.yaml',
    definition: { name: 'enable-pooler' } as PlannedRepair['definition'],
    service: { id: `id-${service}`, name: service },
    rules: ['prod-has-pooler'],
    inputs: {},
  };
}

/** What a scripted run does: each read gives the next state; an ended one says how. */
interface Script {
  states: RunState[];
  ended?: EndedRun;
  refuseStart?: boolean;
}

function driver(scripts: Record<string, Script>, interrupted = new Promise<void>(() => undefined)) {
  const reads = new Map<string, number>();
  return {
    prepare: (planned: PlannedRepair) => {
      const workflowId = `run-${planned.service.name}`;
      return {
        workflowId,
        start: () => {
          if (scripts[planned.service.name]?.refuseStart === true)
            return Promise.reject(Object.assign(new Error('already running'), { code: 'CLI_USAGE' }));
          return Promise.resolve({ workflowId } as WorkflowHandle);
        },
      };
    },
    notStarted: (error: unknown) =>
      (error as { code?: string }).code === 'CLI_USAGE'
        ? { code: 'CLI_USAGE', reason: (error as Error).message }
        : undefined,
    observe: (handle: WorkflowHandle) => {
      const service = handle.workflowId.replace('run-', '');
      const read = reads.get(service) ?? 0;
      reads.set(service, read + 1);
      const states = scripts[service]?.states ?? [];
      return Promise.resolve(states[Math.min(read, states.length - 1)] ?? { closed: false });
    },
    ended: (handle: WorkflowHandle) =>
      Promise.resolve(scripts[handle.workflowId.replace('run-', '')]?.ended ?? { status: 'succeeded' }),
    interrupted,
    pollMs: 1,
  };
}

const running = { closed: false, progress: { status: 'running', steps: [] } as unknown as RunProgress };
const held = {
  closed: false,
  progress: {
    status: 'held',
    steps: [],
    held: [{ stepKey: 'pooler', error: { type: 'CLOUD_API_ERROR', message: 'quota' } }],
  } as unknown as RunProgress,
};
const awaiting = {
  closed: false,
  progress: {
    status: 'running',
    steps: [],
    pendingApproval: { stepKey: 'ok', message: 'go?', deadline: 1, default: 'reject' },
  } as unknown as RunProgress,
};

test('each repair ends as its run did, in the order they ended; a refused start is not started', async () => {
  const ended: string[] = [];
  const runs = await runRepairs(
    ['repaired', 'denied', 'failed', 'held', 'asks', 'busy'].map(repair),
    driver({
      repaired: { states: [running, running, { closed: true }] },
      denied: {
        states: [{ closed: true }],
        ended: { status: 'failed', failure: { stepKey: 'pooler', type: 'POLICY_DENIED', message: 'no' } },
      },
      failed: {
        states: [running, { closed: true }],
        ended: { status: 'failed', failure: { stepKey: '', type: 'CLOUD_API_ERROR', message: 'boom' } },
      },
      held: { states: [running, held] },
      asks: { states: [awaiting] },
      busy: { states: [], refuseStart: true },
    }),
    { onStarted: () => undefined, onEnded: (run: RepairRun) => ended.push(run.repair.service.name) },
  );
  expect(Object.fromEntries(runs.map((run) => [run.repair.service.name, run.outcome]))).toEqual({
    repaired: { kind: 'repaired' },
    denied: { kind: 'refused', code: 'POLICY_DENIED', reason: 'no', stepKey: 'pooler' },
    failed: { kind: 'failed', status: 'failed', code: 'CLOUD_API_ERROR', reason: 'boom' },
    held: { kind: 'held', stepKey: 'pooler', reason: 'quota' },
    asks: {
      kind: 'awaiting-approval',
      approval: { stepKey: 'ok', message: 'go?', deadline: 1, default: 'reject' },
    },
    busy: { kind: 'not-started', code: 'CLI_USAGE', reason: 'already running' },
  });
  expect(ended).toEqual(['busy', 'denied', 'asks', 'failed', 'held', 'repaired']);
});

test('an interruption stops the watching: a run still going is detached', async () => {
  const runs = await runRepairs(
    [repair('slow')],
    driver({ slow: { states: [running] } }, Promise.resolve()),
    {
      onStarted: () => undefined,
      onEnded: () => undefined,
    },
  );
  expect(runs.map((run) => run.outcome)).toEqual([{ kind: 'detached' }]);
});

test('what fails while preparing a run ends the reconcile', async () => {
  const failing = {
    ...driver({}),
    prepare: () => {
      throw new Error('no approval key for bob');
    },
  };
  await expect(
    runRepairs([repair('a')], failing, { onStarted: () => undefined, onEnded: () => undefined }),
  ).rejects.toThrow('no approval key for bob');
});
