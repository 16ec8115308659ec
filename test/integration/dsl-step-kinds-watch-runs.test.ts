// The `watch` step kind through the real interpreter on a dev server and the local cloud: a bake
// period that passes when its time is over, one that fails as soon as its condition holds (and
// compensates what came before), the same failure holding the run under `onFailure: hold`, and a
// failed watch in a ramped foreach stopping the widening and counting against `maxErrors`.
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

  test('in a ramped foreach, a failed watch stops the widening and counts against maxErrors', async () => {
    for (const n of [0, 1, 2, 3]) await seedService(stack, { name: `wave-${n}` });
    const listed = (await stack.api.service.list({ project_id: stack.projectId })).filter((s) =>
      s.name!.startsWith('wave-'),
    );
    const paused = idOf(listed[1]!);
    await stack.api.service.stop({ project_id: stack.projectId, service_id: paused });
    await waitForService(stack, paused, (s) => s.status === 'PAUSED');
    const report = await failedReport(
      await stack.start(fixture('watch-waves'), { project_id: stack.projectId, prefix: 'wave-' }),
    );
    // Width 1, then 2 after item 0 passed: items 1 and 2 start together, item 1's watch fails, which
    // is more than maxErrors 0 allows, so item 3 never starts.
    expect(report.failure).toMatchObject({ stepKey: 'each', type: 'FOREACH_MAX_ERRORS' });
    expect(report.failure?.message).toMatch(
      /^1 of 4 items failed, more than maxErrors 0 allows: failed 1 \(1\); succeeded 0, 2 \(2\); not started 3 \(1\); first failure at each\[1\]\.bake: WATCH_FAILED: /,
    );
    const bakes = Object.fromEntries(
      report.steps.filter((s) => /^each\[\d\]\.bake$/.test(s.key)).map((s) => [s.key, s.status]),
    );
    expect(bakes).toEqual({ 'each[0].bake': 'done', 'each[1].bake': 'failed', 'each[2].bake': 'done' });
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
