// Service lifecycles of the local cloud over real HTTP, stepped with a manual clock.
import type { Service } from '../../cloud/models';
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

let tc: TestCloud;
let p: ReturnType<typeof paths>;

beforeAll(async () => {
  // The seed dialect: the checks compare spec.md's shapes (NEUTRALDB, vpcEndpoint, 204s, no unknown fields);
  // local-cloud-dialect.test.ts covers the current one.
  tc = await startTestCloud({ manualClock: true, seed: 11, dialect: 'seed' });
  p = paths(tc);
});
afterAll(() => tc.close());

const d = () => tc.cloud.durations;

async function get(id: string) {
  return call<Service>(tc, 'GET', p.service(id));
}

async function readyService(
  body: Record<string, unknown> = { name: 'svc' },
): Promise<Service & { service_id: string }> {
  const created = await call<Service & { service_id: string }>(tc, 'POST', p.services, { body });
  expect(created.status).toBe(202);
  tc.advance(d().queued + d().configuring);
  const ready = await get(created.body.service_id);
  expect(ready.body.status).toBe('READY');
  return created.body;
}

test('create answers 202 QUEUED with initial_password; QUEUED → CONFIGURING → READY without it', async () => {
  const created = await call<Service>(tc, 'POST', p.services, {
    body: { name: 'orders', addons: ['time-series'], replica_count: 1, cpu_millis: '1000', memory_gbs: '4' },
  });
  expect(created.status).toBe(202);
  const service = created.body;
  expect(service.status).toBe('QUEUED');
  expect(service.service_id).toMatch(/^[a-z0-9]{10}$/);
  expect(service.project_id).toBe(tc.project.id);
  expect(service.initial_password).toEqual(expect.any(String));
  expect(service.service_type).toBe('NEUTRALDB');
  expect(service.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  expect(service.metadata).toEqual({ environment: 'DEV' });
  expect(service.ha_replicas).toEqual({ replica_count: 1, sync_replica_count: 0 });
  expect(service.resources?.[0]?.spec).toMatchObject({ cpu_millis: 1000, memory_gbs: 4 });
  expect(service.endpoint?.host).toEqual(expect.any(String));
  expect(service.endpoint?.port).toEqual(expect.any(Number));
  expect(service.paused).toBe(false);
  expect(service.read_replica_sets).toEqual([]);

  const id = service.service_id!;
  expect((await get(id)).body.status).toBe('QUEUED');
  tc.advance(d().queued);
  expect((await get(id)).body.status).toBe('CONFIGURING');
  tc.advance(d().configuring - 1);
  expect((await get(id)).body.status).toBe('CONFIGURING');
  tc.advance(1);
  const ready = await get(id);
  expect(ready.status).toBe(200);
  expect(ready.body.status).toBe('READY');
  expect(ready.body).not.toHaveProperty('initial_password');
  expect(ready.body.metrics).toEqual({
    memory_mb: expect.any(Number),
    milli_cpu: expect.any(Number),
    storage_mb: expect.any(Number),
  });
  const list = await call<Service[]>(tc, 'GET', p.services);
  expect(list.body.map((s) => s.service_id)).toContain(id);
  expect(list.body.every((s) => s.initial_password === undefined)).toBe(true);
});

test('service types follow addons; the default size is 500/2 and "shared" is accepted', async () => {
  const plain = await call<Service>(tc, 'POST', p.services, { body: { name: 'plain' } });
  expect(plain.body.service_type).toBe('POSTGRES');
  expect(plain.body.resources?.[0]?.spec).toMatchObject({ cpu_millis: 500, memory_gbs: 2 });
  expect(plain.body.region_code).toBe('us-east-1');
  const vector = await call<Service>(tc, 'POST', p.services, {
    body: {
      name: 'vec',
      addons: ['ai'],
      cpu_millis: 'shared',
      memory_gbs: 'shared',
      region_code: 'eu-west-1',
    },
  });
  expect(vector.status).toBe(202);
  expect(vector.body.service_type).toBe('VECTOR');
  expect(vector.body.region_code).toBe('eu-west-1');
});

test('stop: READY → PAUSING → PAUSED; start: PAUSED → RESUMING → READY', async () => {
  const { service_id: id } = await readyService();
  const stopped = await call<Service>(tc, 'POST', `${p.service(id)}/stop`);
  expect(stopped.status).toBe(202);
  expect(stopped.body.status).toBe('PAUSING');
  tc.advance(d().pausing);
  const paused = await get(id);
  expect(paused.body).toMatchObject({ status: 'PAUSED', paused: true });

  const started = await call<Service>(tc, 'POST', `${p.service(id)}/start`);
  expect(started.status).toBe(202);
  expect(started.body.status).toBe('RESUMING');
  tc.advance(d().resuming);
  expect((await get(id)).body).toMatchObject({ status: 'READY', paused: false });
});

test('resize: CONFIGURING → READY, and resources[].spec follows once READY', async () => {
  const { service_id: id } = await readyService();
  const resized = await call<Service>(tc, 'POST', `${p.service(id)}/resize`, {
    body: { cpu_millis: '2000', memory_gbs: '8' },
  });
  expect(resized.status).toBe(202);
  expect(resized.body.status).toBe('CONFIGURING');
  expect(resized.body.resources?.[0]?.spec).toMatchObject({ cpu_millis: 500, memory_gbs: 2 });
  tc.advance(d().resize);
  const after = await get(id);
  expect(after.body.status).toBe('READY');
  expect(after.body.resources?.[0]?.spec).toEqual({ cpu_millis: 2000, memory_gbs: 8, volume_type: '' });
});

test('setHA: CONFIGURING → READY with the new layout', async () => {
  const { service_id: id } = await readyService();
  const answer = await call<Service>(tc, 'POST', `${p.service(id)}/setHA`, {
    body: { replica_count: 2, sync_replica_count: 1 },
  });
  expect(answer.status).toBe(202);
  expect(answer.body.status).toBe('CONFIGURING');
  tc.advance(d().setHA);
  expect((await get(id)).body).toMatchObject({
    status: 'READY',
    ha_replicas: { replica_count: 2, sync_replica_count: 1 },
  });
  await call(tc, 'POST', `${p.service(id)}/setHA`, { body: { replica_count: 1 } });
  tc.advance(d().setHA);
  expect((await get(id)).body.ha_replicas).toEqual({ replica_count: 1, sync_replica_count: 0 });
});

test('attach / detach VPC: CONFIGURING → READY; vpcEndpoint appears with vpc_id and its own host, then goes', async () => {
  const vpc = await call(tc, 'POST', p.vpcs, {
    body: { name: 'net', cidr: '10.1.0.0/16', region_code: 'us-east-1' },
  });
  const vpcId = vpc.body.id as string;
  const { service_id: id, endpoint } = await readyService();

  const attach = await call(tc, 'POST', `${p.service(id)}/attachToVPC`, { body: { vpc_id: vpcId } });
  expect(attach.status).toBe(202);
  expect(attach.body.message).toEqual(expect.any(String));
  const during = await get(id);
  expect(during.body.status).toBe('CONFIGURING');
  expect(during.body.vpcEndpoint).toBeUndefined();
  tc.advance(d().vpcAttach);
  const attached = await get(id);
  expect(attached.body.status).toBe('READY');
  expect(attached.body.vpcEndpoint).toEqual({
    host: expect.any(String),
    port: expect.any(Number),
    vpc_id: vpcId,
  });
  expect(attached.body.vpcEndpoint?.host).not.toBe(endpoint?.host);

  const again = await call(tc, 'POST', `${p.service(id)}/attachToVPC`, { body: { vpc_id: vpcId } });
  expect(again.status).toBe(409);

  const detach = await call(tc, 'POST', `${p.service(id)}/detachFromVPC`, { body: { vpc_id: vpcId } });
  expect(detach.status).toBe(202);
  expect((await get(id)).body.status).toBe('CONFIGURING');
  tc.advance(d().vpcDetach);
  const detached = await get(id);
  expect(detached.body.status).toBe('READY');
  expect(detached.body.vpcEndpoint).toBeUndefined();
});

test('pooler: enable → CONFIGURING → READY with connection_pooler.endpoint; disable removes it', async () => {
  const { service_id: id } = await readyService();
  const enabled = await call(tc, 'POST', `${p.service(id)}/enablePooler`);
  expect(enabled.status).toBe(200);
  expect(enabled.body.message).toEqual(expect.any(String));
  expect((await get(id)).body.status).toBe('CONFIGURING');
  tc.advance(d().pooler);
  const ready = await get(id);
  expect(ready.body.status).toBe('READY');
  expect(ready.body.connection_pooler?.endpoint).toEqual({
    host: expect.any(String),
    port: expect.any(Number),
  });

  expect((await call(tc, 'POST', `${p.service(id)}/enablePooler`)).status).toBe(409);
  expect((await call(tc, 'POST', `${p.service(id)}/disablePooler`)).status).toBe(200);
  tc.advance(d().pooler);
  expect((await get(id)).body.connection_pooler?.endpoint).toBeUndefined();
  expect((await call(tc, 'POST', `${p.service(id)}/disablePooler`)).status).toBe(409);
});

test('delete: 202 without body → DELETING → 404', async () => {
  const { service_id: id } = await readyService();
  const deleted = await call(tc, 'DELETE', p.service(id));
  expect(deleted.status).toBe(202);
  expect(deleted.body).toBeUndefined();
  expect((await get(id)).body.status).toBe('DELETING');
  expect((await call(tc, 'DELETE', p.service(id))).status).toBe(409);
  tc.advance(d().deleting);
  const gone = await get(id);
  expect(gone.status).toBe(404);
  expect(gone.body).toMatchObject({ code: 'NOT_FOUND' });
  const list = await call<Service[]>(tc, 'GET', p.services);
  expect(list.body.map((s) => s.service_id)).not.toContain(id);
});

test('fork: new QUEUED service with initial_password and forked_from; type/region inherited, 0 HA', async () => {
  const parent = await readyService({
    name: 'parent',
    addons: ['time-series'],
    replica_count: 2,
    region_code: 'eu-central-1',
  });
  tc.advance(d().firstSnapshot);
  const fork = await call<Service>(tc, 'POST', `${p.service(parent.service_id)}/forkService`, {
    body: { fork_strategy: 'LAST_SNAPSHOT' },
  });
  expect(fork.status).toBe(202);
  expect(fork.body).toMatchObject({
    status: 'QUEUED',
    name: 'parent-fork',
    service_type: 'NEUTRALDB',
    region_code: 'eu-central-1',
    ha_replicas: { replica_count: 0, sync_replica_count: 0 },
    metadata: { environment: 'DEV' },
    forked_from: { is_standby: false, project_id: tc.project.id, service_id: parent.service_id },
  });
  expect(fork.body.service_id).not.toBe(parent.service_id);
  expect(fork.body.initial_password).toEqual(expect.any(String));
  tc.advance(d().queued + d().configuring);
  const ready = await get(fork.body.service_id!);
  expect(ready.body.status).toBe('READY');
  expect(ready.body.initial_password).toBeUndefined();

  const named = await call<Service>(tc, 'POST', `${p.service(parent.service_id)}/forkService`, {
    body: {
      fork_strategy: 'NOW',
      name: 'copy',
      cpu_millis: '4000',
      memory_gbs: '16',
      environment_tag: 'PROD',
    },
  });
  expect(named.body).toMatchObject({ name: 'copy', metadata: { environment: 'PROD' } });
  expect(named.body.resources?.[0]?.spec).toMatchObject({ cpu_millis: 4000, memory_gbs: 16 });
});

test('fork rules: LAST_SNAPSHOT needs a first snapshot; only READY or PAUSED parents; PITR inside the history', async () => {
  const parent = await readyService({ name: 'young' });
  const early = await call(tc, 'POST', `${p.service(parent.service_id)}/forkService`, {
    body: { fork_strategy: 'LAST_SNAPSHOT' },
  });
  expect(early.status).toBe(400);
  expect(early.body.message).toMatch(/no backups or snapshots/);
  const now = await call(tc, 'POST', `${p.service(parent.service_id)}/forkService`, {
    body: { fork_strategy: 'NOW' },
  });
  expect(now.status).toBe(202);
  tc.advance(d().firstSnapshot);
  const late = await call(tc, 'POST', `${p.service(parent.service_id)}/forkService`, {
    body: { fork_strategy: 'LAST_SNAPSHOT' },
  });
  expect(late.status).toBe(202);

  const future = new Date(Date.parse('2100-01-01T00:00:00Z')).toISOString();
  const pitr = await call(tc, 'POST', `${p.service(parent.service_id)}/forkService`, {
    body: { fork_strategy: 'PITR', target_time: future },
  });
  expect(pitr.status).toBe(400);

  const queued = await call<Service>(tc, 'POST', p.services, { body: { name: 'busy' } });
  const busy = await call(tc, 'POST', `${p.service(queued.body.service_id!)}/forkService`, {
    body: { fork_strategy: 'NOW' },
  });
  expect(busy.status).toBe(400);
  expect(busy.body.message).toMatch(/only READY or PAUSED/);
});

test('setEnvironment and updatePassword answer 200 {message} and 204', async () => {
  const { service_id: id } = await readyService();
  const env = await call(tc, 'POST', `${p.service(id)}/setEnvironment`, { body: { environment: 'PROD' } });
  expect(env.status).toBe(200);
  expect(env.body.message).toEqual(expect.any(String));
  expect((await get(id)).body.metadata).toEqual({ environment: 'PROD' });
  const password = await call(tc, 'POST', `${p.service(id)}/updatePassword`, {
    body: { password: 'correct-horse-1' },
  });
  expect(password.status).toBe(204);
  expect(password.body).toBeUndefined();
});

test('any change while QUEUED or CONFIGURING answers 409 CONFLICT', async () => {
  const created = await call<Service>(tc, 'POST', p.services, { body: { name: 'fresh' } });
  const id = created.body.service_id!;
  for (const [path, body] of [
    ['resize', { cpu_millis: '1000', memory_gbs: '4' }],
    ['setHA', { replica_count: 1 }],
    ['enablePooler', undefined],
    ['stop', undefined],
  ] as const) {
    const answer = await call(tc, 'POST', `${p.service(id)}/${path}`, { body });
    expect([path, answer.status, answer.body.code]).toEqual([path, 409, 'CONFLICT']);
  }
  tc.advance(d().queued);
  expect(
    (await call(tc, 'POST', `${p.service(id)}/resize`, { body: { cpu_millis: '1000', memory_gbs: '4' } }))
      .status,
  ).toBe(409);
});
