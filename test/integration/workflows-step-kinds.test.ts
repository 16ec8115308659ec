// Every step kind through the real interpreter on a dev server: sleep, parallel, foreach with a
// concurrency limit, continueOnError, child runbooks, assert, approve (approve, reject, timeout
// default), and a step timeout.
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { approvalUpdate, progressQuery, type RunReport } from '../../contract/run-messages';
import { failedReport, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const fixture = (name: string) => path.resolve(__dirname, '..', 'fixtures', 'kinds', `${name}.yaml`);

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('step kinds', () => {
  let stack: RunbookStack;
  let serviceId: string;

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.02 });
    const created = await stack.api.service.create({ project_id: stack.projectId, name: 'kinds' });
    serviceId = created.service_id!;
    await until(async () => {
      const s = await stack.api.service.get({ project_id: stack.projectId, service_id: serviceId });
      return s.status === 'READY' ? true : undefined;
    }, 'READY');
    await stack.api.service.setEnvironment({
      project_id: stack.projectId,
      service_id: serviceId,
      environment: 'PROD',
    });
  }, 120_000);
  afterAll(async () => stack?.close());

  test('sleep, parallel, foreach, continueOnError, child runbook and assert', async () => {
    const handle = await stack.start(fixture('every-kind'), {
      project_id: stack.projectId,
      service_id: serviceId,
    });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    const status = Object.fromEntries(report.steps.map((s) => [s.key, s.status]));
    expect(status).toMatchObject({
      skipped: 'skipped',
      pause: 'done',
      both: 'done',
      'both.left.read_left': 'done',
      'both.right.nap': 'done',
      each: 'done',
      'each[0].shout': 'done',
      'each[3].shout': 'done',
      tolerated: 'failed',
      child: 'done',
      check: 'done',
    });
    expect(report.steps.find((s) => s.key === 'tolerated')?.error?.message).toContain('recorded and ignored');
    expect(report.outputs).toEqual({
      child_environment: 'DEV',
      left_status: 'READY',
      shouted: [true, true, true, true],
      skipped: null,
    });
    const service = await stack.api.service.get({ project_id: stack.projectId, service_id: serviceId });
    expect(service.metadata?.environment).toBe('DEV');
  }, 60_000);

  test('an approval answered by a person lets the run go on', async () => {
    const handle = await stack.start(fixture('approval'), {});
    const pending = await until(async () => (await handle.query(progressQuery)).pendingApproval, 'approval');
    expect(pending).toMatchObject({ stepKey: 'ask', message: 'Go ahead?', default: 'reject' });
    const outcome = await handle.executeUpdate(approvalUpdate, { args: [{ approved: true, by: 'alice' }] });
    expect(outcome).toEqual({ approved: true, by: 'alice', comment: null, timedOut: false });
    const report: RunReport = await handle.result();
    expect(report.outputs.approved_by).toBe('alice');
  }, 30_000);

  test('an answer for a step that is not pending is refused; a rejection fails the run', async () => {
    const handle = await stack.start(fixture('approval'), {});
    await until(async () => (await handle.query(progressQuery)).pendingApproval, 'approval');
    const wrongStep = handle.executeUpdate(approvalUpdate, { args: [{ approved: true, step: 'nope' }] });
    await expect(wrongStep).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    await expect(wrongStep).rejects.toMatchObject({
      cause: { message: expect.stringContaining('no approval is pending at step "nope"') },
    });
    await handle.executeUpdate(approvalUpdate, {
      args: [{ approved: false, by: 'bob', comment: 'not today' }],
    });
    const report = await failedReport(handle);
    expect(report.failure).toMatchObject({ stepKey: 'ask', type: 'APPROVAL_REJECTED' });
    expect(report.failure?.message).toContain('not today');
  }, 30_000);

  test('no answer before the timeout applies the default', async () => {
    const handle = await stack.start(fixture('approval'), { timeout: '300ms' });
    const report = await failedReport(handle);
    expect(report.failure?.type).toBe('APPROVAL_REJECTED');
    expect(report.failure?.message).toContain('no answer before the timeout');
  }, 30_000);

  test('a step that outlives its timeout fails with STEP_TIMEOUT', async () => {
    const handle = await stack.start(fixture('slow-parallel'), {});
    const report = await failedReport(handle);
    expect(report.failure).toMatchObject({ stepKey: 'slow', type: 'STEP_TIMEOUT' });
    expect(report.steps.find((s) => s.key === 'slow.sleeper.long_nap')?.status).toBe('failed');
  }, 30_000);

  test('the first failing parallel branch cancels its siblings, which compensate what they made', async () => {
    const project_id = stack.projectId;
    const handle = await stack.start(fixture('parallel-fail-fast'), { project_id, name: 'fail-fast' });
    // Without fail-fast the run would wait for the sibling's 30-minute wait (the test's timeout).
    const report = await failedReport(handle);
    expect(report.failure).toMatchObject({ stepKey: 'both.quick.boom', type: 'RUNBOOK_FAILED_STEP' });
    const statusOf = (key: string) => report.steps.find((s) => s.key === key)?.status;
    expect(['both.slow.svc', 'both.slow.never'].map(statusOf)).toEqual(['compensated', 'failed']);
    expect(report.steps.find((s) => s.key === 'both.slow.never')?.error?.type).toBe('CANCELLED');
    await until(async () => {
      const services = await stack.api.service.list({ project_id });
      return services.some((s) => s.name === 'fail-fast' && s.status !== 'DELETING') ? undefined : true;
    }, 'the created service to be deleted');
  }, 60_000);
});
