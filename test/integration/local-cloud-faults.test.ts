// Fault injection of the local cloud: each fault kind, the count and probability forms,
// determinism under a seed, faults from the config, and the control API for rules.
import { request } from 'undici';
import type { Peering, ReadReplicaSet, Service } from '../../cloud/models';
import type { FaultRuleInput } from '../../local-cloud/fault-schema';
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

let tc: TestCloud;
let p: ReturnType<typeof paths>;

beforeAll(async () => {
  tc = await startTestCloud({ manualClock: true, seed: 99 });
  p = paths(tc);
});
afterAll(() => tc.close());
afterEach(async () => {
  expect((await call(tc, 'DELETE', `${tc.controlUrl}/faults`)).status).toBe(204);
});

async function addFault(rule: FaultRuleInput | FaultRuleInput[]) {
  const answer = await call<{ rules: FaultRuleView[] }>(tc, 'POST', `${tc.controlUrl}/faults`, {
    body: rule,
  });
  expect(answer.status).toBe(201);
  return answer.body.rules;
}

type FaultRuleView = { id: string; remaining?: number; fired: number };

/** A fault rule as the control API lists it (by id, or the only one). */
async function faultRule(cloud: TestCloud, id?: string): Promise<FaultRuleView | undefined> {
  const listed = await call<{ rules: FaultRuleView[] }>(cloud, 'GET', `${cloud.controlUrl}/faults`);
  return id === undefined ? listed.body.rules[0] : listed.body.rules.find((rule) => rule.id === id);
}

async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setImmediate(resolve));
}

async function serviceCount(): Promise<number> {
  return (await call<Service[]>(tc, 'GET', p.services)).body.length;
}

async function readyService(): Promise<string> {
  const created = await call<Service>(tc, 'POST', p.services, { body: { name: 'f' } });
  expect(created.status).toBe(202);
  const d = tc.cloud.durations;
  tc.advance(d.queued + d.configuring + d.firstSnapshot);
  return created.body.service_id!;
}

test('error: a 5xx answer and no change; `times` spends the rule', async () => {
  const [rule] = await addFault({ action: 'service.create', kind: 'error', status: 503, times: 2 });
  expect(rule).toMatchObject({ remaining: 2, fired: 0 });
  const before = await serviceCount();
  for (let i = 0; i < 2; i++) {
    const answer = await call(tc, 'POST', p.services, { body: { name: 'x' } });
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ code: 'INTERNAL', message: expect.any(String) });
  }
  expect(await serviceCount()).toBe(before);
  expect((await call(tc, 'POST', p.services, { body: { name: 'x' } })).status).toBe(202);
  const listed = await call(tc, 'GET', `${tc.controlUrl}/faults`);
  expect(listed.body.rules).toEqual([expect.objectContaining({ id: rule!.id, remaining: 0, fired: 2 })]);
  // Other operations were never affected.
  expect((await call(tc, 'GET', p.services)).status).toBe(200);
});

test('rateLimit: 429 with Retry-After in seconds or as an HTTP date', async () => {
  await addFault({ action: '*', kind: 'rateLimit', retryAfterSeconds: 7, times: 1 });
  const limited = await call(tc, 'GET', p.services);
  expect(limited.status).toBe(429);
  expect(limited.headers['retry-after']).toBe('7');
  expect(limited.body.code).toBe('RATE_LIMITED');
  await addFault({
    action: 'service.list',
    kind: 'rateLimit',
    retryAfterSeconds: 30,
    retryAfterFormat: 'date',
    times: 1,
  });
  // The date is 30 s after the moment the cloud answered, which lies between sending and
  // receiving; an HTTP date drops the milliseconds. Bracketed so, it holds however long the answer took.
  const sent = Date.now();
  const dated = await call(tc, 'GET', p.services);
  const received = Date.now();
  expect(dated.status).toBe(429);
  const retryAt = Date.parse(String(dated.headers['retry-after']));
  expect(retryAt).toBeGreaterThanOrEqual(Math.floor((sent + 30_000) / 1000) * 1000);
  expect(retryAt).toBeLessThanOrEqual(received + 30_000);
  expect((await call(tc, 'GET', p.services)).status).toBe(200);
});

test('latency: the answer is delayed by the given real milliseconds', async () => {
  const [rule] = await addFault({ action: 'project.list', kind: 'latency', ms: 300, times: 1 });
  const started = Date.now();
  expect((await call(tc, 'GET', '/projects')).status).toBe(200);
  expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  // The second answer is not delayed: the rule was used up by the first (counted, not timed).
  expect((await call(tc, 'GET', '/projects')).status).toBe(200);
  expect(await faultRule(tc, rule!.id)).toMatchObject({ remaining: 0, fired: 1 });
});

test('latency can hang a request; the client times out and the server still closes without waiting for it', async () => {
  const hung = await startTestCloud({ faults: [{ action: 'service.list', kind: 'latency', ms: 600_000 }] });
  try {
    const attempt = request(`${hung.url}${paths(hung).services}`, {
      headers: { authorization: hung.authorization },
      headersTimeout: 200,
    });
    await expect(attempt).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    const pending = request(`${hung.url}${paths(hung).services}`, {
      headers: { authorization: hung.authorization },
    });
    const outcome = pending.then(
      () => 'answered',
      () => 'failed',
    );
    // Close once the second request is held by the fault (it has fired for both), not after a pause.
    await waitUntil(async () => (await faultRule(hung))?.fired === 2);
    // The held answer is due in 10 minutes, far past the test's timeout: a close that waited for
    // it would never return here.
    await hung.close();
    expect(await outcome).toBe('failed');
  } finally {
    await hung.close();
  }
});

test('applyThenFail (error): the service is created, yet the answer is a 5xx', async () => {
  await addFault({ action: 'service.create', kind: 'applyThenFail', status: 502, times: 1 });
  const before = await serviceCount();
  const answer = await call(tc, 'POST', p.services, { body: { name: 'ghost' } });
  expect(answer.status).toBe(502);
  expect(answer.body.code).toBe('INTERNAL');
  const services = (await call<Service[]>(tc, 'GET', p.services)).body;
  expect(services.length).toBe(before + 1);
  expect(services.map((s) => s.name)).toContain('ghost');
});

test('applyThenFail (drop): the change takes effect and the connection closes unanswered', async () => {
  const id = await readyService();
  await addFault({ action: 'service.setEnvironment', kind: 'applyThenFail', mode: 'drop', times: 1 });
  await expect(
    call(tc, 'POST', `${p.service(id)}/setEnvironment`, { body: { environment: 'PROD' } }),
  ).rejects.toThrow();
  expect((await call<Service>(tc, 'GET', p.service(id))).body.metadata?.environment).toBe('PROD');
  expect(tc.cloud.stats().byAction['service.setEnvironment']?.byStatus).toMatchObject({ dropped: 1 });
});

test('applyThenFail does not fire on a request that failed on its own', async () => {
  const [rule] = await addFault({ action: 'service.create', kind: 'applyThenFail', times: 1 });
  expect((await call(tc, 'POST', p.services, { body: {} })).status).toBe(400);
  expect((await call(tc, 'GET', `${tc.controlUrl}/faults`)).body.rules).toEqual([
    expect.objectContaining({ id: rule!.id, remaining: 1, fired: 0 }),
  ]);
});

test('outcome unstable: a resize ends UNSTABLE without taking; a later resize repairs it', async () => {
  const id = await readyService();
  await addFault({ action: 'service.resize', kind: 'outcome', outcome: 'unstable', times: 1 });
  expect(
    (await call(tc, 'POST', `${p.service(id)}/resize`, { body: { cpu_millis: '2000', memory_gbs: '8' } }))
      .status,
  ).toBe(202);
  tc.advance(tc.cloud.durations.resize);
  const broken = await call<Service>(tc, 'GET', p.service(id));
  expect(broken.body.status).toBe('UNSTABLE');
  expect(broken.body.resources?.[0]?.spec).toMatchObject({ cpu_millis: 500, memory_gbs: 2 });
  expect(
    (await call(tc, 'POST', `${p.service(id)}/resize`, { body: { cpu_millis: '500', memory_gbs: '2' } }))
      .status,
  ).toBe(202);
  tc.advance(tc.cloud.durations.resize);
  expect((await call<Service>(tc, 'GET', p.service(id))).body.status).toBe('READY');
});

test('outcome stuckQueued: the create never leaves QUEUED', async () => {
  await addFault({ action: 'service.create', kind: 'outcome', outcome: 'stuckQueued', times: 1 });
  const created = await call<Service>(tc, 'POST', p.services, { body: { name: 'stuck' } });
  tc.advance(3_600_000);
  expect((await call<Service>(tc, 'GET', p.service(created.body.service_id!))).body.status).toBe('QUEUED');
  expect((await call(tc, 'DELETE', p.service(created.body.service_id!))).status).toBe(202);
});

test('outcome replicaSetError: the set goes to error', async () => {
  const id = await readyService();
  await addFault({ action: 'replicaSet.create', kind: 'outcome', outcome: 'replicaSetError', times: 1 });
  const created = await call<ReadReplicaSet>(tc, 'POST', p.replicaSets(id), {
    body: { name: 'r', nodes: 1, cpu_millis: 500, memory_gbs: 2 },
  });
  expect(created.body.status).toBe('creating');
  tc.advance(tc.cloud.durations.replicaSetCreating);
  expect((await call<ReadReplicaSet[]>(tc, 'GET', p.replicaSets(id))).body[0]?.status).toBe('error');
});

test('outcome peeringFailed: the peering ends failed with error_message', async () => {
  const vpc = await call(tc, 'POST', p.vpcs, {
    body: { name: 'n', cidr: '10.9.0.0/16', region_code: 'us-east-1' },
  });
  tc.advance(tc.cloud.durations.vpcProvisioning);
  await addFault({
    action: 'peering.create',
    kind: 'outcome',
    outcome: 'peeringFailed',
    errorMessage: 'peer said no',
  });
  const vpcId = vpc.body.id as string;
  const created = await call<Peering>(tc, 'POST', p.peerings(vpcId), {
    body: { peer_account_id: '1', peer_region_code: 'us-east-1', peer_vpc_id: 'vpc-1' },
  });
  expect(created.body.status).toBe('pending');
  tc.advance(tc.cloud.durations.peeringPending);
  expect((await call<Peering>(tc, 'GET', p.peering(vpcId, created.body.id!))).body).toMatchObject({
    status: 'failed',
    error_message: 'peer said no',
  });
});

test('outcome rules must fit their action', async () => {
  const answer = await call(tc, 'POST', `${tc.controlUrl}/faults`, {
    body: { action: 'vpc.create', kind: 'outcome', outcome: 'unstable' },
  });
  expect(answer.status).toBe(400);
  expect(answer.body.message).toMatch(/action: outcome unstable applies only to/);
});

async function errorPattern(seed: number): Promise<number[]> {
  const cloud = await startTestCloud({
    seed,
    faults: [{ action: 'service.list', kind: 'error', probability: 0.5 }],
  });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) statuses.push((await call(cloud, 'GET', paths(cloud).services)).status);
    return statuses;
  } finally {
    await cloud.close();
  }
}

test('probability draws repeat exactly under the same seed, and differ under another', async () => {
  const first = await errorPattern(1234);
  const again = await errorPattern(1234);
  const other = await errorPattern(4321);
  expect(again).toEqual(first);
  expect(first).toContain(500);
  expect(first).toContain(200);
  expect(other).not.toEqual(first);
});

test('faults given in the config apply from the start; several rules can be added at once', async () => {
  const cloud = await startTestCloud({
    config: { faults: [{ action: 'project.list', kind: 'error', times: 1 }] },
  });
  try {
    expect((await call(cloud, 'GET', '/projects')).status).toBe(500);
    expect((await call(cloud, 'GET', '/projects')).status).toBe(200);
  } finally {
    await cloud.close();
  }
  const rules = await addFault([
    { action: 'vpc.list', kind: 'error', times: 1 },
    { action: 'vpc.get', kind: 'error', times: 1 },
  ]);
  expect(rules.map((r) => r.id)).toHaveLength(2);
  expect((await call(tc, 'DELETE', `${tc.controlUrl}/faults/${rules[0]!.id}`)).status).toBe(204);
  expect((await call(tc, 'GET', p.vpcs)).status).toBe(200);
});
