// Durability of the interpreter: the real worker process (dist/worker/main.js) is killed with
// SIGKILL while two runs of provision-production-service are in flight — one waiting for its VPC
// endpoint, one compensating (waiting for the service it created to be deleted). A new worker
// process replays both from history and finishes them: one READY PROD service, no leftover.
//
// One kill serves both runs: after a SIGKILL the server notices the lost waits only when their
// 30 s heartbeat timeout (the interpreter's policy) expires, and that wait is paid once.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { CloudClient } from '../../cloud/client';
import { loadRunbookFile } from '../../dsl/loader';
import { progressQuery, type RunReport, type RunbookWorkflowInput } from '../../contract/run-messages';
import type { GuardedProcess } from '../helpers/guarded-process';
import type { TestCloud } from '../helpers/local-cloud';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { createVpc } from '../helpers/runbook-fixtures';
import { failedReport, RUNBOOKS_DIR } from '../helpers/runbook-stack';
import { startWorkerProcess } from '../helpers/worker-process';

const { PendingActivityState, TimeoutType } = temporal.api.enums.v1;
const taskQueue = `kill-${randomBytes(4).toString('hex')}`;

let stack: ProcessWorkerStack;
let tc: TestCloud;
let client: Client;
let api: CloudClient;
let vpcId: string;
const workers: GuardedProcess[] = [];

function startWorker(): Promise<GuardedProcess> {
  const worker = startWorkerProcess({ env: stack.workerEnv() });
  return worker.then((started) => (workers.push(started), started));
}

beforeAll(async () => {
  stack = await startProcessWorkerStack({
    taskQueue,
    // Creating takes 2 s; attaching to the VPC and deleting take 12 s, so both runs sit in a wait
    // when the worker dies.
    cloud: {
      timeScale: 1,
      durations: { queued: 500, configuring: 1500, vpcAttach: 12_000, deleting: 12_000, pooler: 500 },
    },
  });
  ({ cloud: tc, client, api } = stack);
  vpcId = await createVpc({ api, projectId: tc.project.id });
}, 240_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await stack?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startProvisioning(name: string, vpc: string): Promise<WorkflowHandle> {
  const definition = loadRunbookFile(path.join(RUNBOOKS_DIR, 'provision-production-service.yaml'));
  const input: RunbookWorkflowInput = {
    definition,
    inputs: { project_id: tc.project.id, name, vpc_id: vpc },
  };
  return client.workflow.start('runbookWorkflow', {
    taskQueue,
    workflowId: `${name}-${randomBytes(4).toString('hex')}`,
    args: [input],
  });
}

/** Until the step is running and its wait activity is executing on a worker. */
async function waitingIn(handle: WorkflowHandle, stepKey: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const progress = await handle.query(progressQuery);
    if (progress.steps.find((s) => s.key === stepKey)?.status === 'running') {
      const { raw } = await handle.describe();
      const polling = raw.pendingActivities?.some(
        (a) =>
          a.activityType?.name === 'wait.until' &&
          a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
      );
      if (polling) return;
    }
    await sleep(100);
  }
  throw new Error(`${handle.workflowId} never got to poll in step ${stepKey}`);
}

/** Wait activities that started again after the server gave up on an attempt (heartbeat timeout). */
async function waitsResumedAfterHeartbeatTimeout(handle: WorkflowHandle): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  const waits = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'wait.until')
      .map((e) => e.eventId?.toString()),
  );
  return events.filter((e) => {
    const started = e.activityTaskStartedEventAttributes;
    return (
      started !== undefined &&
      started !== null &&
      waits.has(started.scheduledEventId?.toString()) &&
      (started.attempt ?? 1) > 1 &&
      started.lastFailure?.timeoutFailureInfo?.timeoutType === TimeoutType.TIMEOUT_TYPE_HEARTBEAT
    );
  }).length;
}

/** The worker identities that completed workflow tasks of the run. */
async function workflowTaskWorkers(handle: WorkflowHandle): Promise<Set<string>> {
  const events = (await handle.fetchHistory()).events ?? [];
  return new Set(
    events.map((e) => e.workflowTaskCompletedEventAttributes?.identity).filter((id): id is string => !!id),
  );
}

test('SIGKILL during a wait and during a compensation: a new worker process finishes both runs', async () => {
  const first = await startWorker();
  const survivor = await startProvisioning('survivor', vpcId);
  // Attaching to a VPC that does not exist fails; the compensation deletes the service.
  const doomed = await startProvisioning('doomed', '999999');
  await Promise.all([waitingIn(survivor, 'attached'), waitingIn(doomed, 'create/undo.service_gone')]);

  await first.kill();
  const during = await api.service.list({ project_id: tc.project.id });
  expect(during.map((s) => [s.name, s.status, s.metadata?.environment]).sort()).toEqual([
    ['doomed', 'DELETING', 'DEV'],
    ['survivor', expect.not.stringMatching(/^(READY|DELETING)$/), 'DEV'],
  ]);

  await startWorker();
  const report = (await survivor.result()) as RunReport;
  const rolledBack = await failedReport(doomed);

  expect(report.status).toBe('succeeded');
  expect(report.steps.every((s) => s.status === 'done')).toBe(true);
  const services = await api.service.list({ project_id: tc.project.id });
  expect(
    services.map((s) => [
      s.service_id,
      s.name,
      s.status,
      s.metadata?.environment,
      s.vpcEndpoint?.vpc_id,
      Boolean(s.connection_pooler?.endpoint),
    ]),
  ).toEqual([[report.outputs.service_id, 'survivor', 'READY', 'PROD', vpcId, true]]);

  expect(rolledBack.failure).toMatchObject({ stepKey: 'attach', type: 'CLOUD_API_NOT_FOUND' });
  expect(rolledBack.steps.find((s) => s.key === 'create')?.status).toBe('compensated');
  expect(rolledBack.steps.find((s) => s.key === 'create/undo.service_gone')?.status).toBe('done');

  const stats = tc.cloud.stats().byAction;
  expect(stats['service.create']?.byStatus['202']).toBe(2);
  expect(stats['service.delete']?.byStatus['202']).toBe(1);
  // The kill really cut both waits off, and the second worker process took the runs over.
  expect(await waitsResumedAfterHeartbeatTimeout(survivor)).toBe(1);
  expect(await waitsResumedAfterHeartbeatTimeout(doomed)).toBe(1);
  expect((await workflowTaskWorkers(survivor)).size).toBe(2);
  expect((await workflowTaskWorkers(doomed)).size).toBe(2);
}, 90_000);
