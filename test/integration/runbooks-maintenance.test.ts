// The maintenance runbooks end to end against the local cloud: rotate-password, add-read-replica,
// enable-ha and vpc-with-peering, each with the state it leaves and its rollback where the local
// cloud can script the failure.
import { getService, reportOf, seedService, statusOf } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

describe('maintenance runbooks', () => {
  let stack: RunbookStack;
  let serviceId: string;

  beforeAll(async () => {
    // A snapshot exists as soon as a service is READY (replicas need one); VPCs take peerings at once.
    stack = await startRunbookStack({ timeScale: 0.05, durations: { firstSnapshot: 0, vpcProvisioning: 0 } });
    serviceId = (await seedService(stack, { name: 'shop' })).service_id!;
  }, 60_000);
  afterAll(async () => stack?.close());

  const calls = (action: string) => stack.cloud.cloud.stats().byAction[action]?.byStatus ?? {};

  describe('rotate-password', () => {
    test('sets the new password once, and the password stays out of the report and the history', async () => {
      const password = 'Rotated-Secret-4711';
      stack.cloud.cloud.resetStats();
      const handle = await stack.start('rotate-password.yaml', {
        project_id: stack.projectId,
        service_id: serviceId,
        new_password: password,
      });
      const report = await reportOf(handle);
      expect(report.status).toBe('succeeded');
      expect(report.outputs).toEqual({ service_id: serviceId });
      // One call, answered with a success status (204 in the seed dialect, 200 in the current one).
      expect(Object.entries(calls('service.updatePassword'))).toEqual([
        [expect.stringMatching(/^20[04]$/), 1],
      ]);
      expect((await getService(stack, serviceId)).status).toBe('READY');
      expect(JSON.stringify(report)).not.toContain(password);
      const history = await handle.fetchHistory();
      expect(JSON.stringify(history)).not.toContain(password);
    }, 20_000);

    test('refuses a service that is not READY without changing anything', async () => {
      const paused = await seedService(stack, { name: 'sleepy', paused: true });
      stack.cloud.cloud.resetStats();
      const handle = await stack.start('rotate-password.yaml', {
        project_id: stack.projectId,
        service_id: paused.service_id,
        new_password: 'Another-Secret-0815',
      });
      const report = await reportOf(handle);
      expect(report.failure).toMatchObject({ stepKey: 'check_ready', type: 'ASSERTION_FAILED' });
      expect(report.failure?.message).toContain('PAUSED');
      expect(calls('service.updatePassword')).toEqual({});
    }, 20_000);
  });

  describe('add-read-replica', () => {
    test('adds an active replica set with a pooler, tagged as asked', async () => {
      const handle = await stack.start('add-read-replica.yaml', {
        project_id: stack.projectId,
        service_id: serviceId,
        name: 'reports',
        nodes: 2,
        pooler: true,
        environment: 'PROD',
      });
      const report = await reportOf(handle);
      expect(report.status).toBe('succeeded');
      const sets = await stack.api.replicaSet.list({ project_id: stack.projectId, service_id: serviceId });
      expect(sets).toHaveLength(1);
      expect(sets[0]).toMatchObject({
        id: report.outputs.replica_set_id,
        name: 'reports',
        nodes: 2,
        cpu_millis: 1000,
        memory_gbs: 4,
        status: 'active',
        metadata: { environment: 'PROD' },
        endpoint: { host: report.outputs.host },
      });
      expect(sets[0]?.connection_pooler?.endpoint?.host).toBeTruthy();
    }, 20_000);

    test('a replica set that ends in error is deleted again', async () => {
      stack.cloud.cloud.addFaults({
        action: 'replicaSet.create',
        kind: 'outcome',
        outcome: 'replicaSetError',
        times: 1,
      });
      const handle = await stack.start('add-read-replica.yaml', {
        project_id: stack.projectId,
        service_id: serviceId,
        name: 'broken',
      });
      const report = await reportOf(handle);
      expect(report.failure).toMatchObject({ stepKey: 'active', type: 'WAIT_FAILED_CONDITION' });
      expect(statusOf(report, 'create')).toBe('compensated');
      expect(statusOf(report, 'create/undo.delete_set')).toBe('done');
      expect(statusOf(report, 'create/undo.set_gone')).toBe('done');
      const sets = await stack.api.replicaSet.list({ project_id: stack.projectId, service_id: serviceId });
      expect(sets.map((s) => s.name)).toEqual(['reports']);
    }, 20_000);
  });

  describe('enable-ha', () => {
    test('sets two HA replicas, one synchronous', async () => {
      const handle = await stack.start('enable-ha.yaml', {
        project_id: stack.projectId,
        service_id: serviceId,
        replica_count: 2,
        sync_replica_count: 1,
      });
      const report = await reportOf(handle);
      expect(report.status).toBe('succeeded');
      expect(report.outputs).toEqual({ replica_count: 2 });
      expect(await getService(stack, serviceId)).toMatchObject({
        status: 'READY',
        ha_replicas: { replica_count: 2, sync_replica_count: 1 },
      });
    }, 20_000);

    test('a change that leaves the service UNSTABLE puts the previous layout back', async () => {
      stack.cloud.cloud.addFaults({
        action: 'service.setHA',
        kind: 'outcome',
        outcome: 'unstable',
        times: 1,
      });
      const handle = await stack.start('enable-ha.yaml', {
        project_id: stack.projectId,
        service_id: serviceId,
        replica_count: 1,
      });
      const report = await reportOf(handle);
      expect(report.failure).toMatchObject({ stepKey: 'ready', type: 'WAIT_FAILED_CONDITION' });
      expect(statusOf(report, 'set_ha')).toBe('compensated');
      expect(statusOf(report, 'set_ha/undo.restore_ha')).toBe('done');
      expect(await getService(stack, serviceId)).toMatchObject({
        status: 'READY',
        ha_replicas: { replica_count: 2, sync_replica_count: 1 },
      });
    }, 20_000);
  });

  describe('vpc-with-peering', () => {
    const peer = { peer_account_id: '123456789012', peer_region_code: 'eu-west-1', peer_vpc_id: 'vpc-0abc' };

    test('creates a VPC with an active peering', async () => {
      const handle = await stack.start('vpc-with-peering.yaml', {
        project_id: stack.projectId,
        name: 'peered',
        cidr: '10.1.0.0/16',
        region_code: 'us-east-1',
        ...peer,
      });
      const report = await reportOf(handle);
      expect(report.status).toBe('succeeded');
      const vpcId = report.outputs.vpc_id as string;
      expect(await stack.api.vpc.get({ project_id: stack.projectId, vpc_id: vpcId })).toMatchObject({
        name: 'peered',
        cidr: '10.1.0.0/16',
        region_code: 'us-east-1',
      });
      const peerings = await stack.api.peering.list({ project_id: stack.projectId, vpc_id: vpcId });
      expect(peerings).toHaveLength(1);
      expect(peerings[0]).toMatchObject({ id: report.outputs.peering_id, status: 'active', ...peer });
      expect(peerings[0]?.provisioned_id).toBeTruthy();
    }, 20_000);

    test('a failed peering is removed and the VPC deleted again', async () => {
      stack.cloud.cloud.addFaults({
        action: 'peering.create',
        kind: 'outcome',
        outcome: 'peeringFailed',
        times: 1,
      });
      const handle = await stack.start('vpc-with-peering.yaml', {
        project_id: stack.projectId,
        name: 'doomed-net',
        cidr: '10.2.0.0/16',
        region_code: 'us-east-1',
        ...peer,
      });
      const report = await reportOf(handle);
      expect(report.failure).toMatchObject({ stepKey: 'active', type: 'WAIT_FAILED_CONDITION' });
      expect(statusOf(report, 'peering')).toBe('compensated');
      expect(statusOf(report, 'vpc')).toBe('compensated');
      const vpcs = await stack.api.vpc.list({ project_id: stack.projectId });
      expect(vpcs.map((v) => v.name)).toEqual(['peered']);
    }, 20_000);
  });
});
