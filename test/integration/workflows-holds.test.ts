// onFailure: hold through the real interpreter on a dev server and the local cloud: a
// failed step holds the run with nothing compensated; an operator retries it (a create that took
// effect is adopted, never duplicated; inputs or `with` values may change), skips it with a
// stand-in output, or rolls back; the hold timeout rolls back on its own; wrong actions are
// refused before they are recorded.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { loadRunbookFile } from '../../dsl/loader';
import {
  progressQuery,
  retryUpdate,
  rollbackUpdate,
  skipUpdate,
  type RunProgress,
  type RunReport,
  type RunbookWorkflowInput,
} from '../../contract/run-messages';
import { createVpc, pollUntil } from '../helpers/runbook-fixtures';
import { failedReport, RUNBOOKS_DIR, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const fixture = (name: string) => path.resolve(__dirname, '..', 'fixtures', 'hold', `${name}.yaml`);
const POOLER_FAULT = { action: 'service.enablePooler', kind: 'error', status: 503 } as const;

function held(handle: WorkflowHandle): Promise<RunProgress> {
  return pollUntil(
    'the run to hold',
    () => handle.query(progressQuery),
    (p) => p.status === 'held',
    30_000,
  );
}

async function refusal(action: Promise<unknown>): Promise<string> {
  try {
    await action;
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    return (error as { cause?: { message?: string } }).cause?.message ?? '';
  }
  throw new Error('expected the update to be refused');
}

describe('onFailure: hold', () => {
  let stack: RunbookStack;
  const start = async (
    file: string,
    inputs: Record<string, unknown>,
    extra: Partial<RunbookWorkflowInput> = {},
    without?: string,
  ) => {
    const loaded = loadRunbookFile(fixture(file));
    const definition = { ...loaded, steps: loaded.steps.filter((s) => s.id !== without) };
    const input: RunbookWorkflowInput = { definition, inputs, ...extra };
    return stack.client.workflow.start('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `${definition.name}-${randomBytes(4).toString('hex')}`,
      args: [input],
    });
  };
  const services = async (name: string) =>
    (await stack.api.service.list({ project_id: stack.projectId })).filter(
      (s) => s.name === name && s.status !== 'DELETING' && s.status !== 'DELETED',
    );

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.02 });
  }, 120_000);
  afterAll(async () => stack?.close());
  afterEach(() => stack.cloud.cloud.clearFaults());

  test('a pooler failure holds; after the fault is gone, retry completes with the same service', async () => {
    stack.cloud.cloud.addFaults([POOLER_FAULT]);
    const handle = await start('provision-hold', { project_id: stack.projectId, name: 'held-retry' });
    const progress = await held(handle);
    expect(progress.held).toEqual([expect.objectContaining({ stepKey: 'pooler' })]);
    expect(progress.held?.[0]?.error.type).toBe('CLOUD_API_SERVER_ERROR');
    expect(progress.steps.find((s) => s.key === 'create')?.status).toBe('done');
    // Wrong actions are refused before they are recorded.
    expect(await refusal(handle.executeUpdate(retryUpdate, { args: [{ step: 'create' }] }))).toMatch(
      /step "create" is not held; held: pooler/,
    );
    expect(
      await refusal(handle.executeUpdate(retryUpdate, { args: [{ inputs: { environment: 'QA' } }] })),
    ).toMatch(/invalid inputs: input `environment`/);
    stack.cloud.cloud.clearFaults();
    const action = await handle.executeUpdate(retryUpdate, {
      args: [{ step: 'pooler', by: 'alice', reason: 'pooler fixed', inputs: { environment: 'PROD' } }],
    });
    expect(action).toMatchObject({
      action: 'retry',
      stepKey: 'pooler',
      by: 'alice',
      inputs: ['environment'],
    });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(report.actions).toEqual([expect.objectContaining({ action: 'retry', reason: 'pooler fixed' })]);
    const made = await services('held-retry');
    expect(made).toHaveLength(1);
    expect(made[0]?.service_id).toBe(report.outputs.service_id);
    expect(made[0]?.metadata?.environment).toBe('PROD');
  }, 60_000);

  test('the shipped provisioning runbook with run --on-failure hold: READY and attached to the VPC, the pooler fails and holds; retry finishes with that one service', async () => {
    const vpcId = await createVpc(stack, { name: 'held-vpc' });
    const loaded = loadRunbookFile(path.join(RUNBOOKS_DIR, 'provision-production-service.yaml'));
    // The pooler fails on its first attempt instead of after its policy's 12 (minutes of backoff).
    const once = { attempts: 1, initialIntervalMs: 1_000, backoff: 2, maxIntervalMs: 1_000 };
    const definition = {
      ...loaded,
      steps: loaded.steps.map((s) => (s.id === 'pooler' ? { ...s, retry: once } : s)),
    };
    stack.cloud.cloud.addFaults([POOLER_FAULT]);
    const handle = await stack.client.workflow.start('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `held-shipped-${randomBytes(4).toString('hex')}`,
      args: [
        {
          definition,
          inputs: { project_id: stack.projectId, name: 'held-shipped', vpc_id: vpcId },
          onFailure: 'hold',
        } satisfies RunbookWorkflowInput,
      ],
    });
    const progress = await held(handle);
    expect(progress.held?.map((h) => h.stepKey)).toEqual(['pooler']);
    expect(
      ['create', 'ready', 'attach', 'attached'].map(
        (key) => progress.steps.find((s) => s.key === key)?.status,
      ),
    ).toEqual(['done', 'done', 'done', 'done']);
    const [service] = await services('held-shipped');
    expect(service?.vpcEndpoint?.vpc_id).toBe(vpcId);

    stack.cloud.cloud.clearFaults();
    await handle.executeUpdate(retryUpdate, {
      args: [{ step: 'pooler', by: 'ops', reason: 'quota raised' }],
    });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(
      (await services('held-shipped')).map((s) => [
        s.service_id,
        s.metadata?.environment,
        s.vpcEndpoint?.vpc_id,
        Boolean(s.connection_pooler?.endpoint),
      ]),
    ).toEqual([[service?.service_id, 'PROD', vpcId, true]]);
    expect(report.outputs.service_id).toBe(service?.service_id);
  }, 60_000);

  test('a create that took effect but answered 5xx is adopted on retry, never duplicated', async () => {
    stack.cloud.cloud.addFaults([{ action: 'service.create', kind: 'applyThenFail', times: 1 }]);
    const handle = await start('provision-hold', { project_id: stack.projectId, name: 'held-adopt' });
    const progress = await held(handle);
    expect(progress.held?.[0]?.stepKey).toBe('create');
    await handle.executeUpdate(retryUpdate, { args: [{ by: 'bob' }] });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(await services('held-adopt')).toHaveLength(1);
  }, 60_000);

  test('a change that took effect but answered 5xx is checked on retry, not sent twice', async () => {
    stack.cloud.cloud.addFaults([{ action: 'service.enablePooler', kind: 'applyThenFail', times: 1 }]);
    // Without `check`: an already-applied answer is the service, not enablePooler's `message`.
    const handle = await start(
      'provision-hold',
      { project_id: stack.projectId, name: 'held-applied' },
      {},
      'check',
    );
    expect((await held(handle)).held?.[0]?.stepKey).toBe('pooler');
    const sent = stack.cloud.cloud.stats().byAction['service.enablePooler']?.total ?? 0;
    await handle.executeUpdate(retryUpdate, { args: [{}] });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(await services('held-applied')).toHaveLength(1);
    expect(report.steps.find((s) => s.key === 'pooler')?.status).toBe('done');
    // The retry saw the pooler on and did not send the change again.
    expect(stack.cloud.cloud.stats().byAction['service.enablePooler']?.total ?? 0).toBe(sent);
  }, 60_000);

  test('retry with changed `with` values runs the step with them; a field the step does not set is refused', async () => {
    stack.cloud.cloud.addFaults([{ action: 'service.create', kind: 'error', status: 503 }]);
    const handle = await start('provision-hold', { project_id: stack.projectId, name: 'held-with' });
    expect((await held(handle)).held?.[0]?.stepKey).toBe('create');
    expect(
      await refusal(handle.executeUpdate(retryUpdate, { args: [{ step: 'create', with: { region: 'x' } }] })),
    ).toMatch(/step create's `with` has no field `region`; it sets: project_id, name, cpu_millis/);
    expect(await refusal(handle.executeUpdate(retryUpdate, { args: [{ with: ['x'] as never }] }))).toMatch(
      /with must be a JSON object/,
    );
    stack.cloud.cloud.clearFaults();
    const action = await handle.executeUpdate(retryUpdate, {
      args: [{ step: 'create', with: { name: 'held-with-renamed' }, by: 'gina' }],
    });
    expect(action).toMatchObject({ action: 'retry', stepKey: 'create', by: 'gina', with: ['name'] });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    // The input still says held-with; the retried create used the name the operator gave.
    expect(await services('held-with')).toHaveLength(0);
    const made = await services('held-with-renamed');
    expect(made.map((s) => s.service_id)).toEqual([report.outputs.service_id]);
    expect(report.actions).toEqual([expect.objectContaining({ action: 'retry', with: ['name'] })]);
  }, 60_000);

  test('skip needs every field later steps read, then the run goes on', async () => {
    stack.cloud.cloud.addFaults([POOLER_FAULT]);
    const handle = await start('provision-hold', { project_id: stack.projectId, name: 'held-skip' });
    await held(handle);
    expect(
      await refusal(handle.executeUpdate(skipUpdate, { args: [{ step: 'pooler', output: {} }] })),
    ).toMatch(/lacks `message`, which a later step reads as steps.pooler.output.message/);
    await handle.executeUpdate(skipUpdate, {
      args: [{ step: 'pooler', output: { message: 'by hand' }, by: 'carol', reason: 'enabled by hand' }],
    });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(report.steps.find((s) => s.key === 'pooler')?.status).toBe('done');
    expect(report.actions?.[0]).toMatchObject({ action: 'skip', by: 'carol', reason: 'enabled by hand' });
  }, 60_000);

  test('rollback compensates now and fails the run', async () => {
    stack.cloud.cloud.addFaults([POOLER_FAULT]);
    const handle = await start('provision-hold', { project_id: stack.projectId, name: 'held-rollback' });
    await held(handle);
    await handle.executeUpdate(rollbackUpdate, { args: [{ by: 'dave', reason: 'give up' }] });
    const report = await failedReport(handle);
    expect(report.failure?.stepKey).toBe('pooler');
    expect(report.steps.find((s) => s.key === 'create')?.status).toBe('compensated');
    expect(report.actions?.[0]).toMatchObject({ action: 'rollback', by: 'dave', reason: 'give up' });
    expect(await services('held-rollback')).toHaveLength(0);
  }, 60_000);

  test('a cancel of a held run compensates and ends it cancelled', async () => {
    stack.cloud.cloud.addFaults([POOLER_FAULT]);
    const handle = await start('provision-hold', { project_id: stack.projectId, name: 'held-cancel' });
    await held(handle);
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow(/cancel/i);
    expect(await services('held-cancel')).toHaveLength(0);
  }, 60_000);

  test('a failed foreach iteration holds only its lane; the others go on', async () => {
    const handle = await start('foreach-hold', {});
    const progress = await pollUntil(
      'the other lanes to finish while one holds',
      () => handle.query(progressQuery),
      (p) =>
        p.status === 'held' &&
        ['each[0].check', 'each[2].check', 'each[3].check'].every(
          (key) => p.steps.find((s) => s.key === key)?.status === 'done',
        ),
      30_000,
    );
    expect(progress.held?.map((h) => h.stepKey)).toEqual(['each[1].check']);
    await handle.executeUpdate(retryUpdate, { args: [{ step: 'each[1].check', inputs: { ok: 'true' } }] });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(report.outputs.checked).toHaveLength(4);
  }, 60_000);

  test('the hold timeout rolls back on its own; nothing held refuses every action', async () => {
    const handle = await start('hold-timeout', {});
    const report = await failedReport(handle);
    expect(report.failure).toMatchObject({ stepKey: 'gate', type: 'ASSERTION_FAILED' });
    expect(report.steps.find((s) => s.key === 'first')?.status).toBe('compensated');
    expect(report.actions).toEqual([expect.objectContaining({ action: 'hold-timeout', stepKey: 'gate' })]);
  }, 30_000);

  test('run --on-failure hold overrides the definition; a run that holds nothing refuses actions', async () => {
    const definition = loadRunbookFile(fixture('hold-timeout'));
    const gate = definition.steps[1]!;
    delete gate.onFailure; // the definition rolls back; the run's override holds
    const startWith = (steps: RunbookWorkflowInput['definition']['steps']) =>
      stack.client.workflow.start('runbookWorkflow', {
        taskQueue: stack.taskQueue,
        workflowId: `hold-override-${randomBytes(4).toString('hex')}`,
        args: [
          {
            definition: { ...definition, steps },
            inputs: {},
            onFailure: 'hold',
          } satisfies RunbookWorkflowInput,
        ],
      });
    const overridden = await startWith([gate]);
    expect((await held(overridden)).held?.[0]?.stepKey).toBe('gate');
    await overridden.executeUpdate(rollbackUpdate, { args: [{}] });
    await failedReport(overridden);
    const sleeping = await startWith([{ ...gate, id: 'nap', kind: 'sleep', durationMs: 60_000 }]);
    await pollUntil(
      'the sleep',
      () => sleeping.query(progressQuery),
      (p) => p.steps[0]?.status === 'running',
      10_000,
    );
    expect(await refusal(sleeping.executeUpdate(retryUpdate, { args: [{}] }))).toMatch(/no step is held/);
    expect(await refusal(sleeping.executeUpdate(rollbackUpdate, { args: [{}] }))).toMatch(/no step is held/);
    await sleeping.terminate('test done');
  }, 30_000);
});
