// Durability of the interpreter: the Temporal dev server is stopped while a provisioning run waits
// for its service to become READY, and started again on the same SQLite file and port. The worker
// and client reconnect, the run picks up where it was, and exactly one service results.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import type { RunReport } from '../../contract/run-messages';
import { progressQuery } from '../../contract/run-messages';
import { createVpc } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const { PendingActivityState } = temporal.api.enums.v1;

let workDir: string;
let stack: RunbookStack;
let vpcId: string;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'tideline-restart-'));
  stack = await startRunbookStack(
    // The service takes 8 s to become READY: long enough to stop and start the server meanwhile.
    { timeScale: 1, durations: { queued: 500, configuring: 7_500, vpcAttach: 500, pooler: 500 } },
    { temporal: { dbFile: path.join(workDir, 'temporal.db') } },
  );
  vpcId = await createVpc(stack);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the dev server stopped and restarted on its database during a wait: the run finishes', async () => {
  const handle = await stack.start('provision-production-service.yaml', {
    project_id: stack.projectId,
    name: 'steadfast',
    vpc_id: vpcId,
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const progress = await handle.query(progressQuery);
    const { raw } = await handle.describe();
    const polling = raw.pendingActivities?.some(
      (a) => a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
    );
    if (progress.steps.find((s) => s.id === 'ready')?.status === 'running' && polling) break;
    if (Date.now() > deadline) throw new Error('the run never got to wait for READY');
    await sleep(100);
  }

  const stoppedAt = Date.now();
  await stack.server.stop();
  expect(stack.server.isRunning()).toBe(false);
  const [service] = await stack.api.service.list({ project_id: stack.projectId });
  expect(service?.status).not.toBe('READY');
  await sleep(1_000);
  await stack.server.start();
  const restartedAt = Date.now();

  const report = (await handle.result()) as RunReport;
  expect(report.status).toBe('succeeded');
  expect(report.steps.map((s) => s.status)).toEqual(report.steps.map(() => 'done'));
  const services = await stack.api.service.list({ project_id: stack.projectId });
  expect(
    services.map((s) => [s.service_id, s.name, s.status, s.metadata?.environment, s.vpcEndpoint?.vpc_id]),
  ).toEqual([[report.outputs.service_id, 'steadfast', 'READY', 'PROD', vpcId]]);
  expect(stack.cloud.cloud.stats().byAction['service.create']?.total).toBe(1);
  // The wait that was under way when the server stopped is the one that ended after the restart.
  const ready = report.steps.find((s) => s.id === 'ready');
  expect(ready?.startedAt).toBeLessThan(stoppedAt);
  expect(ready?.endedAt).toBeGreaterThan(restartedAt);
}, 90_000);
