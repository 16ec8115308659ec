// The local stack (stack/stack.ts), the one way `tideline dev`, `tideline test`, the tests
// and the benchmarks start theirs: on a server it started, it stops everything on close; on a
// server already running, it leaves that server running; its in-process worker runs runbooks on
// its local cloud with its keys.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { startLocalStack, startTemporalStack } from '../../stack/stack';
import { RUNBOOK_WORKFLOW_TYPE } from '../../contract/workflow-types';
import { loadRunbookFile } from '../../dsl/loader';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import { startTemporalServer, testTemporalOptions } from '../helpers/temporal-server';
import type { RunReport } from '../../contract/run-messages';

jest.setTimeout(180_000);

const keyRing = new EncryptionKeyRing([{ id: 'stack-test', key: randomBytes(32) }]);

async function answers(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 5_000 });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

test('a stack runs a runbook on its cloud with its worker, and stops the server it started', async () => {
  const stack = await startLocalStack({ temporal: { start: testTemporalOptions() }, keyRing, cloud: {} });
  let closed = false;
  try {
    const taskQueue = `stack-${randomBytes(4).toString('hex')}`;
    await stack.startInProcessWorker(stack.workerConfig(taskQueue));
    const definition = loadRunbookFile(
      path.resolve(__dirname, '..', '..', 'runbooks', 'stop-dev-services.yaml'),
    );
    const handle = await stack.client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `stack-${randomBytes(4).toString('hex')}`,
      args: [{ definition, inputs: { project_id: stack.access.projectId } }],
    });
    const report = (await handle.result()) as RunReport;
    expect(report.status).toBe('succeeded');
    // The call went to this stack's cloud, with its first project's key pair.
    expect(stack.cloud.stats().byAction['service.list']?.byStatus['200']).toBeGreaterThan(0);
    const address = stack.temporal.connection.address;
    await stack.close();
    closed = true;
    expect(stack.server?.isRunning()).toBe(false);
    expect(await answers(address)).toBe(false);
  } finally {
    if (!closed) await stack.close();
  }
});

test('a stack on a server already running leaves it running when it closes', async () => {
  const server = await startTemporalServer();
  try {
    const stack = await startTemporalStack({ temporal: { running: server }, keyRing });
    expect(stack.server).toBeUndefined();
    const info = await stack.client.workflowService.getSystemInfo({});
    expect(info.capabilities).toBeDefined();
    await stack.close();
    expect(server.isRunning()).toBe(true);
    expect(await answers(server.address)).toBe(true);
  } finally {
    await server.stop();
  }
});
