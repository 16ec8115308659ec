// The `watch` step kind through the real interpreter on a dev server and the local cloud: a bake
// period that passes when its time is over, one that fails as soon as its condition holds (and
// compensates what came before), and the same failure holding the run under `onFailure: hold`.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { loadRunbookFile } from '../../dsl/loader';
import {
  progressQuery,
  rollbackUpdate,
  type RunReport,
  type RunbookWorkflowInput,
} from '../../contract/run-messages';
import { idOf, pollUntil, seedService, waitForService } from '../helpers/runbook-fixtures';
import { failedReport, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const fixture = (name: string) => path.resolve(__dirname, '..', 'fixtures', 'kinds', `${name}.yaml`);
const FAILED_ON_PAUSE = "service.get met the failure condition `result.status == 'PAUSED'` (status PAUSED)";

describe('watch', () => {
  let stack: RunbookStack;

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.02 });
  }, 120_000);
  afterAll(async () => stack?.close());

  const inputsFor = async (name: string) => ({
    project_id: stack.projectId,
    service_id: idOf(await seedService(stack, { name })),
  });

  test('passes when its time is over without the condition holding, with the last answer', async () => {
    const handle = await stack.start(fixture('watch-bake'), await inputsFor('watch-calm'));
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(report.steps.find((s) => s.key === 'bake')?.status).toBe('done');
    expect(report.outputs).toEqual({ status: 'READY' });
  }, 60_000);

  test('fails as soon as its condition holds, and what came before is undone', async () => {
    const inputs = await inputsFor('watch-stopped');
    // Ten minutes of watching: only the condition can end this run within the test's time.
    const report = await failedReport(await stack.start(fixture('watch-stopped'), inputs));
    expect(report.failure).toMatchObject({ stepKey: 'bake', type: 'WATCH_FAILED' });
    expect(report.failure?.message).toContain(FAILED_ON_PAUSE);
    expect(report.steps.find((s) => s.key === 'stop')?.status).toBe('compensated');
    await waitForService(stack, inputs.service_id, (s) => s.status === 'READY');
  }, 60_000);

  test('holds the run under onFailure: hold, until an operator rolls it back', async () => {
    const inputs = await inputsFor('watch-held');
    const definition = { ...loadRunbookFile(fixture('watch-stopped')), onFailure: 'hold' as const };
    const input: RunbookWorkflowInput = { definition, inputs };
    const handle: WorkflowHandle = await stack.client.workflow.start('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `watch-held-${randomBytes(4).toString('hex')}`,
      args: [input],
    });
    const held = await pollUntil(
      'the run to hold',
      () => handle.query(progressQuery),
      (p) => p.status === 'held',
      30_000,
    );
    const bake = held.steps.find((s) => s.key === 'bake');
    expect(bake?.status).toBe('failed');
    expect(bake?.error).toMatchObject({ type: 'WATCH_FAILED' });
    expect(held.steps.find((s) => s.key === 'stop')?.status).toBe('done');
    await handle.executeUpdate(rollbackUpdate, { args: [{ by: 'op', reason: 'paused during the bake' }] });
    const report = await failedReport(handle);
    expect(report.failure).toMatchObject({ stepKey: 'bake', type: 'WATCH_FAILED' });
    expect(report.steps.find((s) => s.key === 'stop')?.status).toBe('compensated');
  }, 60_000);
});
