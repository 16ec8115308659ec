// API conformance: every operation of the catalogue succeeds through the typed client against the local
// cloud, with behaviour.md's exact success status (as counted by the control API), the documented
// answer shape, and the state change it promises. The case table is keyed by action name, so a new
// catalogue action without a case fails both the type check and the `test.each` below.
import { ACTION_NAMES, operations, type ActionName } from '../../cloud/operations';
import {
  expectCloudError,
  startConformanceCloud,
  type ConformanceCloud,
} from '../helpers/api-conformance-fixtures';

let fx: ConformanceCloud;
let project: { project_id: string };

beforeAll(async () => {
  // The seed dialect: the cases check spec.md's statuses and shapes (NEUTRALDB, a renamed VPC,
  // 204 from updatePassword, only buckets with data); api-conformance-every-action.test.ts walks
  // every action in both dialects.
  fx = await startConformanceCloud({ dialect: 'seed' });
  project = { project_id: fx.projectId };
});
afterAll(() => fx.close());

const CREATED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(Z|[+-]\d\d:\d\d)$/;
const SHORT_ID = /^[a-z0-9]{10}$/;
const NUMERIC_ID = /^[0-9]+$/;
const message = { message: expect.any(String) };

const cases: { readonly [A in ActionName]: () => Promise<void> } = {
  'auth.info': async () => {
    const info = await fx.expectSuccess('auth.info', {});
    const key = {
      public_key: fx.tc.project.access_key,
      name: expect.any(String),
      created: expect.any(String),
      project: { id: fx.projectId, name: fx.tc.project.name, plan_type: expect.any(String) },
      issuing_user: { id: expect.any(String), name: expect.any(String), email: expect.any(String) },
    };
    // The client reads the key's details under both names (api_key is the current one).
    expect(info).toEqual({ type: 'apiKey', api_key: key, apiKey: key });
  },

  'project.list': async () => {
    const projects = await fx.expectSuccess('project.list', {});
    expect(projects).toEqual([{ id: fx.projectId, name: fx.tc.project.name }]);
  },

  'vpc.list': async () => {
    const vpc = await fx.readyVpc('listed');
    const vpcs = await fx.expectSuccess('vpc.list', project);
    expect(vpcs).toContainEqual(vpc);
  },
  'vpc.create': async () => {
    const body = { name: 'net-a', cidr: '10.1.0.0/16', region_code: 'eu-west-1' };
    const vpc = await fx.expectSuccess('vpc.create', { ...project, ...body });
    expect(vpc).toEqual({ id: expect.stringMatching(NUMERIC_ID), ...body });
    expect(await fx.client.vpc.get({ ...project, vpc_id: vpc.id! })).toEqual(vpc);
  },
  'vpc.get': async () => {
    const vpc = await fx.readyVpc('fetched');
    expect(await fx.expectSuccess('vpc.get', { ...project, vpc_id: vpc.id })).toEqual(vpc);
  },
  'vpc.delete': async () => {
    const vpc = await fx.readyVpc('doomed');
    expect(await fx.expectSuccess('vpc.delete', { ...project, vpc_id: vpc.id })).toBeUndefined();
    await expectCloudError(fx.client.vpc.get({ ...project, vpc_id: vpc.id }), {
      code: 'CLOUD_API_NOT_FOUND',
      status: 404,
    });
  },
  'vpc.rename': async () => {
    const vpc = await fx.readyVpc('old-name');
    const renamed = await fx.expectSuccess('vpc.rename', { ...project, vpc_id: vpc.id, name: 'new-name' });
    expect(renamed).toEqual({ ...vpc, name: 'new-name' });
    expect((await fx.client.vpc.get({ ...project, vpc_id: vpc.id })).name).toBe('new-name');
  },

  'peering.list': async () => {
    const { id: vpc_id } = await fx.readyVpc();
    const peering = await fx.client.peering.create({ ...project, vpc_id, ...peer('111') });
    expect(await fx.expectSuccess('peering.list', { ...project, vpc_id })).toEqual([peering]);
  },
  'peering.create': async () => {
    const { id: vpc_id } = await fx.readyVpc();
    const peering = await fx.expectSuccess('peering.create', { ...project, vpc_id, ...peer('222') });
    expect(peering).toEqual({ id: expect.stringMatching(NUMERIC_ID), ...peer('222'), status: 'pending' });
    fx.settle();
    const later = await fx.client.peering.get({ ...project, vpc_id, peering_id: peering.id! });
    expect(later).toMatchObject({ status: 'active', provisioned_id: expect.any(String) });
    expect(later.error_message).toBeUndefined();
  },
  'peering.get': async () => {
    const { id: vpc_id } = await fx.readyVpc();
    const peering = await fx.client.peering.create({ ...project, vpc_id, ...peer('333') });
    const fetched = await fx.expectSuccess('peering.get', { ...project, vpc_id, peering_id: peering.id! });
    expect(fetched).toEqual(peering);
  },
  'peering.delete': async () => {
    const { id: vpc_id } = await fx.readyVpc();
    const { id } = await fx.client.peering.create({ ...project, vpc_id, ...peer('444') });
    const peering_id = id!;
    expect(await fx.expectSuccess('peering.delete', { ...project, vpc_id, peering_id })).toBeUndefined();
    await expectCloudError(fx.client.peering.get({ ...project, vpc_id, peering_id }), {
      code: 'CLOUD_API_NOT_FOUND',
      status: 404,
    });
  },

  'service.list': async () => {
    const service_id = await fx.readyService('listed');
    const services = await fx.expectSuccess('service.list', project);
    expect(services.map((s) => s.service_id)).toContain(service_id);
    for (const service of services) expect(service.initial_password).toBeUndefined();
  },
  'service.create': async () => {
    const input = {
      ...project,
      name: 'ts-db',
      addons: ['time-series' as const],
      cpu_millis: '1000',
      memory_gbs: '4',
    };
    const created = await fx.expectSuccess('service.create', input);
    expect(created).toMatchObject({
      service_id: expect.stringMatching(SHORT_ID),
      project_id: fx.projectId,
      name: 'ts-db',
      service_type: 'NEUTRALDB',
      status: 'QUEUED',
      paused: false,
      created: expect.stringMatching(CREATED),
      initial_password: expect.any(String),
      metadata: { environment: 'DEV' },
      ha_replicas: { replica_count: 0, sync_replica_count: 0 },
      read_replica_sets: [],
      resources: [{ id: expect.any(String), spec: { cpu_millis: 1000, memory_gbs: 4, volume_type: '' } }],
    });
    expect(created.initial_password!.length).toBeGreaterThanOrEqual(8);
    fx.settle();
    const later = await fx.getService(created.service_id!);
    expect(later.status).toBe('READY');
    expect(later.initial_password).toBeUndefined();
  },
  'service.get': async () => {
    const service_id = await fx.readyService('fetched');
    const service = await fx.expectSuccess('service.get', { ...project, service_id });
    expect(service).toMatchObject({
      service_id,
      status: 'READY',
      service_type: 'POSTGRES',
      endpoint: { host: expect.any(String), port: expect.any(Number) },
      created: expect.stringMatching(CREATED),
    });
    expect(service.initial_password).toBeUndefined();
    expect(service.vpcEndpoint).toBeUndefined();
  },
  'service.delete': async () => {
    const service_id = await fx.readyService('doomed');
    expect(await fx.expectSuccess('service.delete', { ...project, service_id })).toBeUndefined();
    expect((await fx.getService(service_id)).status).toBe('DELETING');
    fx.settle();
    await expectCloudError(fx.getService(service_id), { code: 'CLOUD_API_NOT_FOUND', status: 404 });
  },
  'service.start': async () => {
    const service_id = await fx.readyService('sleeper');
    await fx.client.service.stop({ ...project, service_id });
    fx.settle();
    const resuming = await fx.expectSuccess('service.start', { ...project, service_id });
    expect(resuming).toMatchObject({ service_id, status: 'RESUMING' });
    fx.settle();
    expect(await fx.getService(service_id)).toMatchObject({ status: 'READY', paused: false });
  },
  'service.stop': async () => {
    const service_id = await fx.readyService('stopper');
    const pausing = await fx.expectSuccess('service.stop', { ...project, service_id });
    expect(pausing).toMatchObject({ service_id, status: 'PAUSING' });
    fx.settle();
    expect(await fx.getService(service_id)).toMatchObject({ status: 'PAUSED', paused: true });
  },
  'service.attachToVpc': async () => {
    const service_id = await fx.readyService('joiner');
    const vpc = await fx.readyVpc();
    const before = await fx.getService(service_id);
    const answer = await fx.expectSuccess('service.attachToVpc', { ...project, service_id, vpc_id: vpc.id });
    expect(answer).toEqual(message);
    expect((await fx.getService(service_id)).status).toBe('CONFIGURING');
    fx.settle();
    const after = await fx.getService(service_id);
    expect(after.status).toBe('READY');
    expect(after.vpcEndpoint).toEqual({ host: expect.any(String), port: expect.any(Number), vpc_id: vpc.id });
    expect(after.vpcEndpoint!.host).not.toBe(before.endpoint!.host);
  },
  'service.detachFromVpc': async () => {
    const service_id = await fx.readyService('leaver');
    const vpc = await fx.readyVpc();
    await fx.client.service.attachToVpc({ ...project, service_id, vpc_id: vpc.id });
    fx.settle();
    const answer = await fx.expectSuccess('service.detachFromVpc', {
      ...project,
      service_id,
      vpc_id: vpc.id,
    });
    expect(answer).toEqual(message);
    fx.settle();
    const after = await fx.getService(service_id);
    expect(after.status).toBe('READY');
    expect(after.vpcEndpoint).toBeUndefined();
  },
  'service.resize': async () => {
    const service_id = await fx.readyService('grower');
    const answer = await fx.expectSuccess('service.resize', {
      ...project,
      service_id,
      cpu_millis: '2000',
      memory_gbs: '8',
    });
    expect(answer).toMatchObject({ service_id, status: 'CONFIGURING' });
    fx.settle();
    const after = await fx.getService(service_id);
    expect(after.status).toBe('READY');
    expect(after.resources?.[0]?.spec).toMatchObject({ cpu_millis: 2000, memory_gbs: 8 });
  },
  'service.enablePooler': async () => {
    const service_id = await fx.readyService('pooled');
    expect((await fx.getService(service_id)).connection_pooler?.endpoint).toBeUndefined();
    expect(await fx.expectSuccess('service.enablePooler', { ...project, service_id })).toEqual(message);
    fx.settle();
    const endpoint = (await fx.getService(service_id)).connection_pooler?.endpoint;
    expect(endpoint).toEqual({ host: expect.any(String), port: expect.any(Number) });
  },
  'service.disablePooler': async () => {
    const service_id = await fx.readyService('unpooled');
    await fx.client.service.enablePooler({ ...project, service_id });
    fx.settle();
    expect(await fx.expectSuccess('service.disablePooler', { ...project, service_id })).toEqual(message);
    fx.settle();
    expect((await fx.getService(service_id)).connection_pooler?.endpoint).toBeUndefined();
  },
  'service.fork': async () => {
    const parent = await fx.readyService('parent');
    const fork = await fx.expectSuccess('service.fork', {
      ...project,
      service_id: parent,
      fork_strategy: 'NOW',
      environment_tag: 'PROD',
    });
    expect(fork).toMatchObject({
      service_id: expect.stringMatching(SHORT_ID),
      name: 'parent-fork',
      status: 'QUEUED',
      initial_password: expect.any(String),
      forked_from: { is_standby: false, project_id: fx.projectId, service_id: parent },
      ha_replicas: { replica_count: 0 },
      metadata: { environment: 'PROD' },
    });
    expect(fork.service_id).not.toBe(parent);
    fx.settle();
    const later = await fx.getService(fork.service_id!);
    expect(later.status).toBe('READY');
    expect(later.initial_password).toBeUndefined();
  },
  'service.updatePassword': async () => {
    const service_id = await fx.readyService('rotated');
    const input = { ...project, service_id, password: 'a-new-Passw0rd' };
    expect(await fx.expectSuccess('service.updatePassword', input)).toBeUndefined();
    expect((await fx.getService(service_id)).status).toBe('READY');
  },
  'service.setEnvironment': async () => {
    const service_id = await fx.readyService('promoted');
    const answer = await fx.expectSuccess('service.setEnvironment', {
      ...project,
      service_id,
      environment: 'PROD',
    });
    expect(answer).toEqual(message);
    expect((await fx.getService(service_id)).metadata).toEqual({ environment: 'PROD' });
  },
  'service.rename': async () => {
    const service_id = await fx.readyService('before');
    const renamed = await fx.expectSuccess('service.rename', { ...project, service_id, name: 'after' });
    expect(renamed).toMatchObject({ service_id, name: 'after', status: 'READY' });
    expect((await fx.getService(service_id)).name).toBe('after');
  },
  'service.logs': async () => {
    const service_id = await fx.readyService('chatty');
    const page = await fx.expectSuccess('service.logs', { ...project, service_id });
    expect(page.entries?.length).toBeGreaterThan(1);
    expect(page.logs).toEqual(page.entries!.map((entry) => entry.message));
    const times = page.entries!.map((entry) => Date.parse(entry.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  },
  'service.metricsAvailableSeries': async () => {
    const service_id = await fx.readyService('measured');
    const names = await fx.expectSuccess('service.metricsAvailableSeries', { ...project, service_id });
    expect(names).toEqual(expect.arrayContaining(['timescale_cloud_system_memory_usage_bytes']));
    expect(names).toEqual([...names].sort());
  },
  'service.metricsSeries': async () => {
    const service_id = await fx.readyService('measured');
    const created = Date.parse((await fx.getService(service_id)).created!);
    const series = await fx.expectSuccess('service.metricsSeries', {
      ...project,
      service_id,
      name: 'timescale_cloud_system_memory_total_bytes',
      from: new Date(created - 3_600_000).toISOString(),
      to: new Date(created + 3_600_000).toISOString(),
    });
    // 2 GB, from the bucket in which the service became READY up to now, one point a minute.
    expect(series).toEqual([{ labels: { role: 'primary', ordinal: '0' }, data: expect.any(Array) }]);
    const data = series[0]!.data!;
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((point) => point.value === 2 * 1024 ** 3)).toBe(true);
    const times = data.map((point) => Date.parse(point.time));
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual(times.slice(1).map(() => 60_000));
  },
  'service.setHA': async () => {
    const service_id = await fx.readyService('replicated');
    const input = { ...project, service_id, replica_count: 2, sync_replica_count: 1 };
    expect(await fx.expectSuccess('service.setHA', input)).toMatchObject({ status: 'CONFIGURING' });
    fx.settle();
    expect((await fx.getService(service_id)).ha_replicas).toEqual({
      replica_count: 2,
      sync_replica_count: 1,
    });
  },

  'replicaSet.list': async () => {
    const { serviceId: service_id, setId } = await fx.activeReplicaSet();
    const sets = await fx.expectSuccess('replicaSet.list', { ...project, service_id });
    expect(sets).toEqual([expect.objectContaining({ id: setId, status: 'active', nodes: 1 })]);
    expect((await fx.getService(service_id)).read_replica_sets).toEqual(sets);
  },
  'replicaSet.create': async () => {
    const service_id = await fx.readyService('reads', true);
    const body = { name: 'analytics', nodes: 2, cpu_millis: 2000, memory_gbs: 8 };
    const set = await fx.expectSuccess('replicaSet.create', { ...project, service_id, ...body });
    expect(set).toMatchObject({
      id: expect.stringMatching(SHORT_ID),
      ...body,
      status: 'creating',
      endpoint: { host: expect.any(String), port: expect.any(Number) },
    });
    fx.settle();
    expect(await fx.replicaSet(service_id, set.id!)).toMatchObject({ status: 'active' });
  },
  'replicaSet.delete': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    const input = { ...project, service_id, replica_set_id };
    expect(await fx.expectSuccess('replicaSet.delete', input)).toBeUndefined();
    expect(await fx.replicaSet(service_id, replica_set_id)).toMatchObject({ status: 'deleting' });
    fx.settle();
    expect(await fx.replicaSet(service_id, replica_set_id)).toBeUndefined();
  },
  'replicaSet.resize': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    const input = { ...project, service_id, replica_set_id, cpu_millis: '4000', memory_gbs: '16' };
    expect(await fx.expectSuccess('replicaSet.resize', input)).toBeUndefined();
    expect(await fx.replicaSet(service_id, replica_set_id)).toMatchObject({ status: 'resizing' });
    fx.settle();
    expect(await fx.replicaSet(service_id, replica_set_id)).toMatchObject({
      status: 'active',
      cpu_millis: 4000,
      memory_gbs: 16,
    });
  },
  'replicaSet.enablePooler': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    const answer = await fx.expectSuccess('replicaSet.enablePooler', {
      ...project,
      service_id,
      replica_set_id,
    });
    expect(answer).toEqual(message);
    const set = await fx.replicaSet(service_id, replica_set_id);
    expect(set?.connection_pooler?.endpoint).toEqual({ host: expect.any(String), port: expect.any(Number) });
  },
  'replicaSet.disablePooler': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    await fx.client.replicaSet.enablePooler({ ...project, service_id, replica_set_id });
    const answer = await fx.expectSuccess('replicaSet.disablePooler', {
      ...project,
      service_id,
      replica_set_id,
    });
    expect(answer).toEqual(message);
    expect((await fx.replicaSet(service_id, replica_set_id))?.connection_pooler?.endpoint).toBeUndefined();
  },
  'replicaSet.setEnvironment': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    const input = { ...project, service_id, replica_set_id, environment: 'PROD' as const };
    expect(await fx.expectSuccess('replicaSet.setEnvironment', input)).toEqual(message);
    expect((await fx.replicaSet(service_id, replica_set_id))?.metadata).toEqual({ environment: 'PROD' });
  },
};

function peer(account: string) {
  return { peer_account_id: account, peer_region_code: 'us-west-2', peer_vpc_id: `vpc-${account}` };
}

test.each(ACTION_NAMES)('%s succeeds with its documented status, shape and effect', async (action) => {
  const run = (cases as Partial<Record<string, () => Promise<void>>>)[action];
  if (run === undefined) throw new Error(`no success case for ${action}`);
  await run();
});

test('the server answered every action with its success status at least once', async () => {
  const { byAction } = await fx.stats();
  const missing = ACTION_NAMES.filter(
    (action) => (byAction[action]?.byStatus[String(operations[action].successStatus)] ?? 0) < 1,
  );
  expect(missing).toEqual([]);
});
