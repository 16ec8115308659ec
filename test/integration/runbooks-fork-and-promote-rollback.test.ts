// fork-and-promote's rollback paths against the local cloud: a rejected approval, an approval
// that times out (default: reject), and a failure after the parent was already demoted. Each
// ends with the parent in service (PROD, READY, attached) and the fork deleted — in both dialects
// of the local cloud (the current one names the attachment `vpc_endpoint` only).
import type { RunReport } from '../../contract/run-messages';
import {
  createVpc,
  decide,
  getService,
  reportOf,
  seedService,
  serviceNames,
  statusOf,
  waitForApproval,
} from '../helpers/runbook-fixtures';
import { DIALECTS } from '../helpers/local-cloud';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

describe.each(DIALECTS)('fork-and-promote rollback (%s dialect)', (dialect) => {
  let stack: RunbookStack;
  let vpcId: string;

  beforeAll(async () => {
    // Stopping takes 3 s here (60 s × 0.05), longer than the 2 s ready_timeout of the last test.
    stack = await startRunbookStack({ timeScale: 0.05, durations: { pausing: 60_000 }, dialect });
    vpcId = await createVpc(stack);
  }, 60_000);
  afterAll(async () => stack?.close());

  /** The parent is back in service exactly as it was, and only it remains. */
  async function expectParentRestored(parentId: string, name: string): Promise<void> {
    const parent = await getService(stack, parentId);
    expect(parent).toMatchObject({
      status: 'READY',
      paused: false,
      metadata: { environment: 'PROD' },
      vpc_endpoint: { vpc_id: vpcId },
    });
    expect(parent.connection_pooler?.endpoint?.host).toBeTruthy();
    expect((await serviceNames(stack)).filter((n) => n.startsWith(name))).toEqual([name]);
  }

  function expectForkRemoved(report: RunReport): void {
    expect(statusOf(report, 'fork')).toBe('compensated');
    expect(statusOf(report, 'fork/undo.delete_fork')).toBe('done');
    expect(statusOf(report, 'fork/undo.fork_gone')).toBe('done');
  }

  test('a rejected approval deletes the fork and leaves the parent in service', async () => {
    const parent = await seedService(stack, { name: 'rejected', environment: 'PROD', vpcId, pooler: true });
    const handle = await stack.start('fork-and-promote.yaml', {
      project_id: stack.projectId,
      service_id: parent.service_id,
      require_approval: true,
    });
    await waitForApproval(handle);
    await decide(handle, { approved: false, by: 'tests', comment: 'not today' });

    const report = await reportOf(handle);
    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'approval', type: 'APPROVAL_REJECTED' });
    expect(report.failure?.message).toContain('not today');
    expectForkRemoved(report);
    expect(statusOf(report, 'fork_prod')).toBe('pending');
    await expectParentRestored(parent.service_id!, 'rejected');
  }, 30_000);

  test('an approval nobody answers is rejected at its timeout (default: reject)', async () => {
    const parent = await seedService(stack, { name: 'unanswered', environment: 'PROD', vpcId, pooler: true });
    const handle = await stack.start('fork-and-promote.yaml', {
      project_id: stack.projectId,
      service_id: parent.service_id,
      require_approval: true,
      approval_timeout: '1s',
    });
    const report = await reportOf(handle);
    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'approval', type: 'APPROVAL_REJECTED' });
    expect(report.failure?.message).toMatch(/timeout/);
    expectForkRemoved(report);
    await expectParentRestored(parent.service_id!, 'unanswered');
  }, 30_000);

  test('a failure after the parent was demoted restarts, re-tags and re-attaches it and deletes the fork', async () => {
    const parent = await seedService(stack, { name: 'late', environment: 'PROD', vpcId, pooler: true });
    const handle = await stack.start('fork-and-promote.yaml', {
      project_id: stack.projectId,
      service_id: parent.service_id,
      // Every other wait here ends within a second; the parent takes 3 s to pause.
      ready_timeout: '2s',
    });
    const report = await reportOf(handle);

    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'parent_paused', type: 'WAIT_TIMEOUT' });
    // Undone newest first: the parent's restore (wait until it settles, start it, re-attach it,
    // tag it PROD), then the fork's deletion.
    const undone = report.steps.filter((s) => s.compensates !== undefined).map((s) => [s.key, s.status]);
    expect(undone).toEqual([
      ['parent_dev/undo.parent_settled', 'done'],
      ['parent_dev/undo.parent_start', 'done'],
      ['parent_dev/undo.parent_running', 'done'],
      ['parent_dev/undo.parent_reattach', 'done'],
      ['parent_dev/undo.parent_reattached', 'done'],
      ['parent_dev/undo.parent_prod_again', 'done'],
      ['fork/undo.delete_fork', 'done'],
      ['fork/undo.fork_gone', 'done'],
    ]);
    expect(statusOf(report, 'parent_dev')).toBe('compensated');
    expect(statusOf(report, 'fork')).toBe('compensated');
    await expectParentRestored(parent.service_id!, 'late');
  }, 45_000);

  test('a detach that leaves the parent UNSTABLE and still attached: tagged PROD again, not re-attached twice', async () => {
    const parent = await seedService(stack, { name: 'shaky', environment: 'PROD', vpcId, pooler: true });
    stack.cloud.cloud.addFaults({
      action: 'service.detachFromVpc',
      kind: 'outcome',
      outcome: 'unstable',
      times: 1,
    });
    const handle = await stack.start('fork-and-promote.yaml', {
      project_id: stack.projectId,
      service_id: parent.service_id,
    });
    const report = await reportOf(handle);

    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'parent_detached', type: 'WAIT_FAILED_CONDITION' });
    expect(statusOf(report, 'parent_dev')).toBe('compensated');
    expect(statusOf(report, 'parent_dev/undo.parent_start')).toBe('skipped');
    // The detach did not take, so the parent is still attached: re-attaching would be refused.
    expect(statusOf(report, 'parent_dev/undo.parent_reattach')).toBe('skipped');
    expect(statusOf(report, 'parent_dev/undo.parent_prod_again')).toBe('done');
    expectForkRemoved(report);
    // UNSTABLE is the cloud's doing; the runbook put the parent back in service as far as it can.
    expect(await getService(stack, parent.service_id!)).toMatchObject({
      status: 'UNSTABLE',
      metadata: { environment: 'PROD' },
      vpc_endpoint: { vpc_id: vpcId },
    });
    expect((await serviceNames(stack)).filter((n) => n.startsWith('shaky'))).toEqual(['shaky']);
  }, 30_000);
});
