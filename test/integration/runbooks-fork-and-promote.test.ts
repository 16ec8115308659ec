// fork-and-promote end to end against the local cloud: the fork takes the parent's place (VPC,
// pooler, HA like the parent, PROD) and the parent is demoted (DEV, detached, PAUSED), with and
// without a person approving the promotion. Both cases run against both dialects of the local
// cloud (spec.md's and the API's current one).
import { progressQuery } from '../../contract/run-messages';
import { DIALECTS } from '../helpers/local-cloud';
import {
  createVpc,
  decide,
  expectEveryOutputFilled,
  getService,
  seedService,
  serviceNames,
  stepStatuses,
  waitForApproval,
} from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

describe.each(DIALECTS)('fork-and-promote (%s dialect)', (dialect) => {
  let stack: RunbookStack;
  let vpcId: string;

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.05, dialect });
    vpcId = await createVpc(stack);
  }, 60_000);
  afterAll(async () => stack?.close());

  test('the fork takes over: same VPC, pooler and HA as the parent, PROD; the parent ends DEV, detached, PAUSED', async () => {
    const parent = await seedService(stack, {
      name: 'orders',
      environment: 'PROD',
      vpcId,
      pooler: true,
      ha: { replica_count: 2, sync_replica_count: 1 },
    });
    const handle = await stack.start('fork-and-promote.yaml', {
      project_id: stack.projectId,
      service_id: parent.service_id,
    });
    const report = await handle.result();

    expect(report.status).toBe('succeeded');
    expect(stepStatuses(report)).toEqual([
      ['parent', 'done'],
      ['check_parent', 'done'],
      ['fork', 'done'],
      ['fork_ready', 'done'],
      ['approval', 'skipped'],
      ['fork_ha', 'done'],
      ['fork_ha_ready', 'done'],
      ['fork_attach', 'done'],
      ['fork_attached', 'done'],
      ['fork_pooler', 'done'],
      ['fork_pooler_ready', 'done'],
      ['fork_prod', 'done'],
      ['parent_dev', 'done'],
      ['parent_detach', 'done'],
      ['parent_detached', 'done'],
      ['parent_stop', 'done'],
      ['parent_paused', 'done'],
    ]);
    const forkId = report.outputs.service_id as string;
    expect(report.outputs.parent_service_id).toBe(parent.service_id);
    expect(report.secretOutputs).toEqual(['password']);
    expectEveryOutputFilled(report, 'fork-and-promote.yaml');

    const fork = await getService(stack, forkId);
    expect(fork).toMatchObject({
      name: 'orders-fork',
      status: 'READY',
      metadata: { environment: 'PROD' },
      vpc_endpoint: { vpc_id: vpcId },
      ha_replicas: { replica_count: 2, sync_replica_count: 1 },
      forked_from: { service_id: parent.service_id },
    });
    expect(fork.connection_pooler?.endpoint?.host).toBeTruthy();

    const demoted = await getService(stack, parent.service_id!);
    expect(demoted.status).toBe('PAUSED');
    expect(demoted.paused).toBe(true);
    expect(demoted.metadata?.environment).toBe('DEV');
    expect(demoted.vpc_endpoint).toBeUndefined();

    expect(await serviceNames(stack)).toEqual(['orders', 'orders-fork']);
  }, 40_000);

  test('with require_approval the fork takes over only once a person approves', async () => {
    // A plain parent: no VPC, no pooler, no HA, so the fork gets none of them either.
    const parent = await seedService(stack, { name: 'billing', environment: 'PROD' });
    const handle = await stack.start('fork-and-promote.yaml', {
      project_id: stack.projectId,
      service_id: parent.service_id,
      fork_name: 'billing-next',
      require_approval: true,
    });

    const pending = await waitForApproval(handle);
    expect(pending.stepKey).toBe('approval');
    expect(pending.default).toBe('reject');
    const waiting = await handle.query(progressQuery);
    const forkId = (await stack.api.service.list({ project_id: stack.projectId })).find(
      (s) => s.name === 'billing-next',
    )?.service_id;
    expect(forkId).toBeDefined();
    expect(pending.message).toContain(forkId!);
    expect(waiting.steps.find((s) => s.key === 'fork_prod')?.status).toBe('pending');
    // Nothing has touched the parent or promoted the fork while the approval is pending.
    expect(await getService(stack, parent.service_id!)).toMatchObject({
      status: 'READY',
      metadata: { environment: 'PROD' },
    });
    expect((await getService(stack, forkId!)).metadata?.environment).toBe('DEV');

    const outcome = await decide(handle, { approved: true, by: 'tests', comment: 'go' });
    expect(outcome).toEqual({ approved: true, by: 'tests', comment: 'go', timedOut: false });
    // A second answer finds no pending approval and is rejected by the update's validator.
    const refused = await decide(handle, { approved: false }).then(
      () => undefined,
      (error: { cause?: { message?: string } }) => error,
    );
    expect(refused?.cause?.message).toMatch(/no approval is pending/);

    const report = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(report.outputs.service_id).toBe(forkId);
    expectEveryOutputFilled(report, 'fork-and-promote.yaml');
    const statuses = Object.fromEntries(stepStatuses(report));
    expect(statuses).toMatchObject({
      approval: 'done',
      fork_ha: 'skipped',
      fork_ha_ready: 'skipped',
      fork_attach: 'skipped',
      fork_attached: 'skipped',
      fork_pooler: 'skipped',
      fork_pooler_ready: 'skipped',
      fork_prod: 'done',
      parent_dev: 'done',
      parent_detach: 'skipped',
      parent_detached: 'skipped',
      parent_paused: 'done',
    });

    const fork = await getService(stack, forkId!);
    expect(fork).toMatchObject({
      status: 'READY',
      metadata: { environment: 'PROD' },
      ha_replicas: { replica_count: 0 },
      connection_pooler: {},
    });
    expect(fork.vpc_endpoint).toBeUndefined();
    expect(await getService(stack, parent.service_id!)).toMatchObject({
      status: 'PAUSED',
      metadata: { environment: 'DEV' },
    });
  }, 40_000);
});
