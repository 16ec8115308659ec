// A held run is durable: a provisioning held at its failed pooler step outlives a
// SIGKILL of the worker process and a restart of the Temporal dev server on its database. A new
// worker process answers for it (still held, nothing compensated, the service still there), and
// once the fault is gone a retry completes it with the same service: exactly one exists.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { loadRunbookFile } from '../../dsl/loader';
import {
  progressQuery,
  retryUpdate,
  type RunProgress,
  type RunReport,
  type RunbookWorkflowInput,
} from '../../contract/run-messages';
import type { GuardedProcess } from '../helpers/guarded-process';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { pollUntil } from '../helpers/runbook-fixtures';
import { startWorkerProcess } from '../helpers/worker-process';

const taskQueue = `hold-durable-${randomBytes(4).toString('hex')}`;
const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'hold', 'provision-hold.yaml');

let workDir: string;
let stack: ProcessWorkerStack;
const workers: GuardedProcess[] = [];

function startWorker(): Promise<GuardedProcess> {
  return startWorkerProcess({ env: stack.workerEnv() }).then((started) => (workers.push(started), started));
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'tideline-hold-durable-'));
  stack = await startProcessWorkerStack({
    taskQueue,
    cloud: { timeScale: 0.02 },
    temporal: { dbFile: path.join(workDir, 'temporal.db') },
  });
}, 240_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await stack?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** The run's progress once it reports held. A query may fail while no worker has the run yet. */
function heldProgress(handle: WorkflowHandle): Promise<RunProgress | undefined> {
  return pollUntil(
    'the run to answer that it is held',
    () => handle.query(progressQuery).catch(() => undefined),
    (p) => p?.status === 'held',
    60_000,
  );
}

test('a held run survives a worker SIGKILL and a dev server restart, and a retry then completes it', async () => {
  const { cloud: tc, client, api } = stack;
  const liveServices = async () =>
    (await api.service.list({ project_id: tc.project.id })).filter(
      (s) => s.name === 'held-durable' && s.status !== 'DELETING' && s.status !== 'DELETED',
    );
  const first = await startWorker();
  tc.cloud.addFaults([{ action: 'service.enablePooler', kind: 'error', status: 503 }]);
  const input: RunbookWorkflowInput = {
    definition: loadRunbookFile(FIXTURE),
    inputs: { project_id: tc.project.id, name: 'held-durable' },
  };
  const handle = await client.workflow.start('runbookWorkflow', {
    taskQueue,
    workflowId: `held-durable-${randomBytes(4).toString('hex')}`,
    args: [input],
  });
  const before = await heldProgress(handle);
  expect(before?.held?.map((h) => h.stepKey)).toEqual(['pooler']);
  const [service] = await liveServices();
  expect(service).toBeDefined();

  // The worker dies (SIGKILL), then the server is stopped and started again on its database.
  const killedAt = Date.now();
  await first.kill();
  await stack.server.stop();
  expect(stack.server.isRunning()).toBe(false);
  await stack.server.start();
  await startWorker();

  // A new worker process replays the run: still held at the same step, the hold opened before
  // the restart rather than again after it (the hold timer lives in the history), nothing
  // compensated. Workflow time on replay can differ from the live task's by milliseconds, so
  // the deadline is compared through the hold's own start, not to the millisecond.
  const after = await heldProgress(handle);
  expect(after?.held).toEqual([
    expect.objectContaining({
      stepKey: 'pooler',
      error: expect.objectContaining({ type: 'CLOUD_API_SERVER_ERROR' }),
    }),
  ]);
  const [heldBefore] = before?.held ?? [];
  const [heldAfter] = after?.held ?? [];
  expect(heldAfter!.heldAt).toBeLessThan(killedAt);
  expect(heldAfter!.deadline - heldAfter!.heldAt).toBe(heldBefore!.deadline - heldBefore!.heldAt);
  expect(after?.steps.find((s) => s.key === 'create')?.status).toBe('done');
  expect((await liveServices()).map((s) => s.service_id)).toEqual([service?.service_id]);

  tc.cloud.clearFaults();
  const action = await handle.executeUpdate(retryUpdate, {
    args: [{ step: 'pooler', by: 'ops', reason: 'quota raised after the restart' }],
  });
  expect(action).toMatchObject({ action: 'retry', stepKey: 'pooler', by: 'ops' });
  const report = (await handle.result()) as RunReport;
  expect(report.status).toBe('succeeded');
  expect(report.outputs.service_id).toBe(service?.service_id);
  expect(report.steps.find((s) => s.key === 'pooler')?.status).toBe('done');
  expect((await liveServices()).map((s) => s.service_id)).toEqual([service?.service_id]);
  expect(tc.cloud.stats().byAction['service.create']?.total).toBe(1);
  expect(report.actions).toEqual([expect.objectContaining({ action: 'retry', by: 'ops' })]);
}, 180_000);
