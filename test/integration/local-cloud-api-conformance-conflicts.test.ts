// API conformance: 409 Conflict through the typed client for busy or conflicting state, and that the
// conflicting request changed nothing. 409 is retryable in this API (it means "busy").
import {
  expectCloudError,
  startConformanceCloud,
  type ConformanceCloud,
} from '../helpers/api-conformance-fixtures';

let fx: ConformanceCloud;
let project: { project_id: string };

beforeAll(async () => {
  fx = await startConformanceCloud();
  project = { project_id: fx.projectId };
});
afterAll(() => fx.close());

const CONFLICT = { code: 'CLOUD_API_CONFLICT', status: 409, apiCode: 'CONFLICT', retryable: true } as const;

describe('a change while another is in progress', () => {
  test('resize while CONFIGURING: 409, and only the first size takes', async () => {
    const service_id = await fx.readyService('busy');
    await fx.client.service.resize({ ...project, service_id, cpu_millis: '2000', memory_gbs: '8' });
    await expectCloudError(
      fx.client.service.resize({ ...project, service_id, cpu_millis: '4000', memory_gbs: '16' }),
      CONFLICT,
    );
    fx.settle();
    expect((await fx.getService(service_id)).resources?.[0]?.spec).toMatchObject({
      cpu_millis: 2000,
      memory_gbs: 8,
    });
  });

  test('setHA, pooler, attach and stop while CONFIGURING: 409 each', async () => {
    const service_id = await fx.readyService('busy-2');
    const vpc = await fx.readyVpc();
    await fx.client.service.setHA({ ...project, service_id, replica_count: 1 });
    const id = { ...project, service_id };
    await expectCloudError(fx.client.service.setHA({ ...id, replica_count: 2 }), CONFLICT);
    await expectCloudError(fx.client.service.enablePooler(id), CONFLICT);
    await expectCloudError(fx.client.service.attachToVpc({ ...id, vpc_id: vpc.id }), CONFLICT);
    await expectCloudError(fx.client.service.stop(id), CONFLICT);
    await expectCloudError(
      fx.client.service.updatePassword({ ...id, password: 'another-passw0rd' }),
      CONFLICT,
    );
    fx.settle();
    const after = await fx.getService(service_id);
    expect(after).toMatchObject({
      status: 'READY',
      ha_replicas: { replica_count: 1, sync_replica_count: 0 },
    });
    expect(after.vpcEndpoint).toBeUndefined();
    expect(after.connection_pooler?.endpoint).toBeUndefined();
  });

  test('a change to a QUEUED service: 409', async () => {
    const queued = await fx.client.service.create({ ...project, name: 'queued' });
    await expectCloudError(
      fx.client.service.enablePooler({ ...project, service_id: queued.service_id! }),
      CONFLICT,
    );
  });

  test('deleting a service that is already DELETING: 409', async () => {
    const service_id = await fx.readyService('going');
    await fx.client.service.delete({ ...project, service_id });
    await expectCloudError(fx.client.service.delete({ ...project, service_id }), CONFLICT);
  });
});

describe('conflicting state', () => {
  test('enabling an enabled pooler, disabling a disabled one: 409', async () => {
    const service_id = await fx.readyService('pooled');
    await expectCloudError(fx.client.service.disablePooler({ ...project, service_id }), CONFLICT);
    await fx.client.service.enablePooler({ ...project, service_id });
    fx.settle();
    await expectCloudError(fx.client.service.enablePooler({ ...project, service_id }), CONFLICT);
    expect((await fx.getService(service_id)).status).toBe('READY');
  });

  test('deleting a VPC with attached services: 409 while attaching and once attached; fine after detach', async () => {
    const service_id = await fx.readyService('attached');
    const vpc = await fx.readyVpc();
    const ids = { ...project, vpc_id: vpc.id };
    await fx.client.service.attachToVpc({ ...ids, service_id });
    const error = await expectCloudError(fx.client.vpc.delete(ids), CONFLICT);
    expect(error.message).toContain(service_id);
    fx.settle();
    await expectCloudError(fx.client.vpc.delete(ids), CONFLICT);
    expect(await fx.client.vpc.get(ids)).toMatchObject({ id: vpc.id });
    await fx.client.service.detachFromVpc({ ...ids, service_id });
    fx.settle();
    await fx.client.vpc.delete(ids);
    await expectCloudError(fx.client.vpc.get(ids), { code: 'CLOUD_API_NOT_FOUND', status: 404 });
  });

  test('attaching a service that is already attached, detaching from the wrong VPC: 409', async () => {
    const service_id = await fx.readyService('double');
    const first = await fx.readyVpc('first');
    const second = await fx.readyVpc('second');
    await fx.client.service.attachToVpc({ ...project, service_id, vpc_id: first.id });
    fx.settle();
    await expectCloudError(
      fx.client.service.attachToVpc({ ...project, service_id, vpc_id: second.id }),
      CONFLICT,
    );
    await expectCloudError(
      fx.client.service.detachFromVpc({ ...project, service_id, vpc_id: second.id }),
      CONFLICT,
    );
    expect((await fx.getService(service_id)).vpcEndpoint?.vpc_id).toBe(first.id);
  });

  test('peering a VPC that is still being provisioned: 409, then it works', async () => {
    const vpc = await fx.client.vpc.create({
      ...project,
      name: 'fresh',
      cidr: '10.9.0.0/16',
      region_code: 'us-east-1',
    });
    const input = {
      ...project,
      vpc_id: vpc.id!,
      peer_account_id: '5',
      peer_region_code: 'us-east-1',
      peer_vpc_id: 'vpc-5',
    };
    await expectCloudError(fx.client.peering.create(input), CONFLICT);
    expect(await fx.client.peering.list({ ...project, vpc_id: vpc.id! })).toEqual([]);
    fx.settle();
    expect(await fx.client.peering.create(input)).toMatchObject({ status: 'pending' });
    await expectCloudError(fx.client.peering.create(input), CONFLICT);
  });

  test('a read replica set before the first snapshot: 409', async () => {
    const service_id = await fx.readyService('young');
    const body = { name: 'r', nodes: 1, cpu_millis: 1000, memory_gbs: 4 };
    await expectCloudError(fx.client.replicaSet.create({ ...project, service_id, ...body }), CONFLICT);
    expect(await fx.client.replicaSet.list({ ...project, service_id })).toEqual([]);
  });

  test('replica set pooler and resize while it is creating, and a second enable: 409', async () => {
    const service_id = await fx.readyService('reads', true);
    const set = await fx.client.replicaSet.create({
      ...project,
      service_id,
      name: 'r',
      nodes: 1,
      cpu_millis: 1000,
      memory_gbs: 4,
    });
    const ids = { ...project, service_id, replica_set_id: set.id! };
    await expectCloudError(fx.client.replicaSet.enablePooler(ids), CONFLICT);
    await expectCloudError(
      fx.client.replicaSet.resize({ ...ids, cpu_millis: '2000', memory_gbs: '8' }),
      CONFLICT,
    );
    fx.settle();
    await fx.client.replicaSet.enablePooler(ids);
    await expectCloudError(fx.client.replicaSet.enablePooler(ids), CONFLICT);
    expect(await fx.replicaSet(service_id, set.id!)).toMatchObject({ status: 'active', cpu_millis: 1000 });
  });
});
