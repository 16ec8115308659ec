// VPCs, peerings, read replica sets and the project list of the local cloud, over real HTTP.
import type { Peering, ReadReplicaSet, Service, Vpc } from '../../cloud/models';
import { pollUntil } from '../../bench/lib/cancel-runs';
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

let tc: TestCloud;
let p: ReturnType<typeof paths>;

beforeAll(async () => {
  // The seed dialect: the checks compare spec.md's shapes (whole answers compared, no unknown fields);
  // local-cloud-dialect.test.ts covers the current one.
  tc = await startTestCloud({ manualClock: true, seed: 5, dialect: 'seed' });
  p = paths(tc);
});
afterAll(() => tc.close());

const d = () => tc.cloud.durations;

async function createVpc(name = 'net'): Promise<Vpc & { id: string }> {
  const answer = await call<Vpc & { id: string }>(tc, 'POST', p.vpcs, {
    body: { name, cidr: '10.0.0.0/16', region_code: 'us-east-1' },
  });
  expect(answer.status).toBe(201);
  return answer.body;
}

async function readyServiceWithSnapshot(): Promise<string> {
  const created = await call<Service>(tc, 'POST', p.services, { body: { name: 'db' } });
  tc.advance(d().queued + d().configuring + d().firstSnapshot);
  return created.body.service_id!;
}

test('GET /projects lists the key’s project', async () => {
  const answer = await call(tc, 'GET', '/projects');
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual([{ id: tc.project.id, name: tc.project.name }]);
});

test('VPC create (201), list, get, rename (200) and delete (204)', async () => {
  const vpc = await createVpc('first');
  expect(vpc).toEqual({
    id: expect.stringMatching(/^[0-9]+$/),
    name: 'first',
    cidr: '10.0.0.0/16',
    region_code: 'us-east-1',
  });
  const list = await call<Vpc[]>(tc, 'GET', p.vpcs);
  expect(list.status).toBe(200);
  expect(list.body.map((v) => v.id)).toContain(vpc.id);
  expect((await call(tc, 'GET', p.vpc(vpc.id))).body).toEqual(vpc);
  const renamed = await call(tc, 'POST', `${p.vpc(vpc.id)}/rename`, { body: { name: 'second' } });
  expect(renamed.status).toBe(200);
  expect(renamed.body).toEqual({ ...vpc, name: 'second' });
  const deleted = await call(tc, 'DELETE', p.vpc(vpc.id));
  expect(deleted.status).toBe(204);
  expect(deleted.body).toBeUndefined();
  expect((await call(tc, 'GET', p.vpc(vpc.id))).status).toBe(404);
});

test('a VPC with an attached service cannot be deleted (409)', async () => {
  const vpc = await createVpc();
  const id = await readyServiceWithSnapshot();
  expect((await call(tc, 'POST', `${p.service(id)}/attachToVPC`, { body: { vpc_id: vpc.id } })).status).toBe(
    202,
  );
  const refused = await call(tc, 'DELETE', p.vpc(vpc.id));
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(id) });
  tc.advance(d().vpcAttach);
  await call(tc, 'POST', `${p.service(id)}/detachFromVPC`, { body: { vpc_id: vpc.id } });
  tc.advance(d().vpcDetach);
  expect((await call(tc, 'DELETE', p.vpc(vpc.id))).status).toBe(204);
});

test('peering: refused (409) while the VPC provisions, then 201 pending → active with provisioned_id; delete 204', async () => {
  const vpc = await createVpc();
  const body = { peer_account_id: '123456789012', peer_region_code: 'us-east-1', peer_vpc_id: 'vpc-0abc' };
  const early = await call(tc, 'POST', p.peerings(vpc.id), { body });
  expect(early.status).toBe(409);
  tc.advance(d().vpcProvisioning);
  const created = await call<Peering & { id: string }>(tc, 'POST', p.peerings(vpc.id), { body });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ ...body, status: 'pending', id: expect.stringMatching(/^[0-9]+$/) });
  expect((await call(tc, 'POST', p.peerings(vpc.id), { body })).status).toBe(409);
  tc.advance(d().peeringPending);
  const active = await call<Peering>(tc, 'GET', p.peering(vpc.id, created.body.id));
  expect(active.body.status).toBe('active');
  expect(active.body.provisioned_id).toEqual(expect.any(String));
  expect(active.body.error_message).toBeUndefined();
  const list = await call<Peering[]>(tc, 'GET', p.peerings(vpc.id));
  expect(list.body).toEqual([active.body]);
  expect((await call(tc, 'DELETE', p.peering(vpc.id, created.body.id))).status).toBe(204);
  expect((await call(tc, 'GET', p.peering(vpc.id, created.body.id))).status).toBe(404);
  expect((await call(tc, 'GET', p.peerings('999'))).status).toBe(404);
});

test('replica sets: creating → active, resizing → active, pooler, environment, deleting → gone', async () => {
  const id = await readyServiceWithSnapshot();
  const created = await call<ReadReplicaSet & { id: string }>(tc, 'POST', p.replicaSets(id), {
    body: { name: 'reads', nodes: 2, cpu_millis: 1000, memory_gbs: 4 },
  });
  expect(created.status).toBe(202);
  expect(created.body).toMatchObject({
    name: 'reads',
    nodes: 2,
    cpu_millis: 1000,
    memory_gbs: 4,
    status: 'creating',
  });
  expect(created.body.id).toMatch(/^[a-z0-9]{10}$/);
  const setPath = p.replicaSet(id, created.body.id);

  expect((await call(tc, 'POST', `${setPath}/enablePooler`)).status).toBe(409);
  tc.advance(d().replicaSetCreating);
  const listed = await call<ReadReplicaSet[]>(tc, 'GET', p.replicaSets(id));
  expect(listed.body).toEqual([expect.objectContaining({ id: created.body.id, status: 'active' })]);
  const service = await call<Service>(tc, 'GET', p.service(id));
  expect(service.body.read_replica_sets).toEqual(listed.body);

  const resized = await call(tc, 'POST', `${setPath}/resize`, {
    body: { cpu_millis: '2000', memory_gbs: '8' },
  });
  expect(resized.status).toBe(202);
  expect(resized.body).toBeUndefined();
  expect((await call<ReadReplicaSet[]>(tc, 'GET', p.replicaSets(id))).body[0]?.status).toBe('resizing');
  tc.advance(d().replicaSetResizing);
  expect((await call<ReadReplicaSet[]>(tc, 'GET', p.replicaSets(id))).body[0]).toMatchObject({
    status: 'active',
    cpu_millis: 2000,
    memory_gbs: 8,
  });

  expect((await call(tc, 'POST', `${setPath}/enablePooler`)).status).toBe(200);
  expect((await call(tc, 'POST', `${setPath}/enablePooler`)).status).toBe(409);
  const withPooler = (await call<ReadReplicaSet[]>(tc, 'GET', p.replicaSets(id))).body[0];
  expect(withPooler?.connection_pooler?.endpoint?.host).toEqual(expect.any(String));
  expect((await call(tc, 'POST', `${setPath}/disablePooler`)).status).toBe(200);
  expect((await call(tc, 'POST', `${setPath}/disablePooler`)).status).toBe(409);
  const env = await call(tc, 'POST', `${setPath}/setEnvironment`, { body: { environment: 'PROD' } });
  expect(env.status).toBe(200);
  expect((await call<ReadReplicaSet[]>(tc, 'GET', p.replicaSets(id))).body[0]?.metadata).toEqual({
    environment: 'PROD',
  });

  const deleted = await call(tc, 'DELETE', setPath);
  expect(deleted.status).toBe(202);
  expect((await call<ReadReplicaSet[]>(tc, 'GET', p.replicaSets(id))).body[0]?.status).toBe('deleting');
  expect((await call(tc, 'DELETE', setPath)).status).toBe(409);
  tc.advance(d().replicaSetDeleting);
  expect((await call(tc, 'GET', p.replicaSets(id))).body).toEqual([]);
  expect((await call(tc, 'POST', `${setPath}/enablePooler`)).status).toBe(404);
});

test('a read replica needs the service’s first snapshot (409 before it)', async () => {
  const created = await call<Service>(tc, 'POST', p.services, { body: { name: 'fresh' } });
  tc.advance(d().queued + d().configuring);
  const body = { name: 'r', nodes: 1, cpu_millis: 500, memory_gbs: 2 };
  const early = await call(tc, 'POST', p.replicaSets(created.body.service_id!), { body });
  expect(early.status).toBe(409);
  tc.advance(d().firstSnapshot);
  expect((await call(tc, 'POST', p.replicaSets(created.body.service_id!), { body })).status).toBe(202);
});

test('with the system clock and a small time scale, a create becomes READY in real time', async () => {
  const fast = await startTestCloud({ timeScale: 0.02 });
  try {
    const fp = paths(fast);
    const created = await call<Service>(fast, 'POST', fp.services, { body: { name: 'quick' } });
    expect(created.body.status).toBe('QUEUED');
    // Nothing advances a clock here: only real time can make it READY (the wait fails naming the
    // status it saw last).
    await pollUntil(
      'the create READY on the system clock',
      async () => (await call<Service>(fast, 'GET', fp.service(created.body.service_id!))).body.status,
      (status) => status === 'READY',
      30_000,
    );
  } finally {
    await fast.close();
  }
});
