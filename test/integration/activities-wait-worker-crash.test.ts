// Durability: a worker process killed with SIGKILL while a wait activity is in flight; a second
// worker process finishes the provisioning, and exactly one service exists.
//
// The worker's entry (dist/worker/main.js) always runs the production workflows, with no way to
// name another workflow module, so these worker processes run a small inline entry around the
// same compiled createTidelineWorker, with the fixture workflows pre-bundled once by this test.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { CloudClient } from '../../cloud/client';
import { bundleWorkflows } from '../../worker/bundle';
import type { GuardedProcess } from '../helpers/guarded-process';
import { spawnGuarded } from '../helpers/guarded-process';
import type { TestCloud } from '../helpers/local-cloud';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { REPO_ROOT, WORKER_READY, workerEnvironment } from '../helpers/worker-process';
import type { ProvisionOptions, ProvisionResult } from './fixtures/platform-workflows';

const DIST = path.join(REPO_ROOT, 'dist');
const taskQueue = `crash-${randomBytes(4).toString('hex')}`;

/** What dist/worker/main.js does, minus the runtime's signal handling, with the fixture bundle. */
function workerEntry(bundlePath: string): string {
  const dist = (file: string) => JSON.stringify(path.join(DIST, 'worker', file));
  return `
const { loadWorkerConfig } = require(${dist('config.js')});
const { loadTemporalSettings } = require(${dist('connection.js')});
const { loadEncryptionKeys } = require(${dist('key-store.js')});
const { createTidelineWorker } = require(${dist('worker.js')});
(async () => {
  const worker = await createTidelineWorker(loadWorkerConfig(), {
    keyRing: loadEncryptionKeys().keyRing,
    temporal: loadTemporalSettings(),
    workflows: { workflowBundle: { codePath: ${JSON.stringify(bundlePath)} } },
  });
  process.stderr.write('tideline worker ready (fixture workflows)\\n');
  await worker.run();
})().catch((error) => {
  process.stderr.write(String((error && error.stack) || error) + '\\n');
  process.exitCode = 1;
});
`;
}

let stack: ProcessWorkerStack;
let tc: TestCloud;
let client: Client;
let api: CloudClient;
let workDir: string;
let bundlePath: string;
const workers: GuardedProcess[] = [];

async function startWorker(): Promise<GuardedProcess> {
  const worker = spawnGuarded(process.execPath, ['-e', workerEntry(bundlePath)], {
    env: workerEnvironment(stack.workerEnv()),
    cwd: REPO_ROOT,
    label: 'tideline worker process (fixture workflows)',
  });
  workers.push(worker);
  await worker.waitForOutput(WORKER_READY, 60_000);
  return worker;
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'tideline-crash-'));
  bundlePath = path.join(workDir, 'fixture-bundle.js');
  [stack] = await Promise.all([
    // Provisioning takes 5 s, so the wait is still polling when the worker dies.
    startProcessWorkerStack({
      taskQueue,
      cloud: { timeScale: 1, durations: { queued: 1000, configuring: 4000 } },
    }),
    bundleWorkflows({ outFile: bundlePath, workflowsPath: require.resolve('./fixtures/platform-workflows') }),
  ]);
  ({ cloud: tc, client, api } = stack);
}, 240_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await stack?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitActivityPolling(workflowId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { raw } = await client.workflow.getHandle(workflowId).describe();
    const waiting = raw.pendingActivities?.some(
      (activity) =>
        activity.activityType?.name === 'wait.until' &&
        activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
    );
    if (waiting && (tc.cloud.stats().byAction['service.get']?.total ?? 0) >= 1) return;
    await sleep(100);
  }
  throw new Error('the wait activity never started polling');
}

test('SIGKILL during a wait: a new worker finishes the run, and one service exists', async () => {
  const first = await startWorker();
  const workflowId = `crash-${randomBytes(4).toString('hex')}`;
  // A short heartbeat timeout, so the server notices the dead worker in seconds, not 30 s.
  const options: ProvisionOptions = {
    waitHeartbeatTimeoutMs: 2_000,
    pollIntervalMs: 250,
    maxPollIntervalMs: 500,
  };
  const handle = await client.workflow.start('provisionWorkflow', {
    taskQueue,
    workflowId,
    args: [tc.project.id, 'survivor', options],
  });

  await waitActivityPolling(workflowId);
  await first.kill();
  const services = await api.service.list({ project_id: tc.project.id });
  expect(services.map((s) => [s.name, s.status])).toEqual([
    ['survivor', expect.not.stringMatching(/^READY$/)],
  ]);

  await startWorker();
  const result = (await handle.result()) as ProvisionResult;

  const after = await api.service.list({ project_id: tc.project.id });
  expect(after.map((s) => [s.service_id, s.status, s.metadata?.environment])).toEqual([
    [result.serviceId, 'READY', 'PROD'],
  ]);
  expect(tc.cloud.stats().byAction['service.create']?.total).toBe(1);
  expect(result.adopted).toBe(false);

  // The wait really was cut off: its final attempt is the second, after a heartbeat timeout.
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'wait.until',
  );
  const started = events.find(
    (e) =>
      e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString(),
  )?.activityTaskStartedEventAttributes;
  expect(started?.attempt).toBe(2);
  expect(started?.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(
    temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
  );
}, 90_000);
