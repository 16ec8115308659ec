// Request validation and error answers of the local cloud: each bad-input rule, illegal
// transitions, unknown resources and routes. Every error is `{code, message}` JSON.
import type { Service } from '../../cloud/models';
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

let tc: TestCloud;
let p: ReturnType<typeof paths>;
let readyId: string;

beforeAll(async () => {
  tc = await startTestCloud({ manualClock: true });
  p = paths(tc);
  const created = await call<Service>(tc, 'POST', p.services, { body: { name: 'target' } });
  readyId = created.body.service_id!;
  tc.advance(tc.cloud.durations.queued + tc.cloud.durations.configuring);
});
afterAll(() => tc.close());

async function expectBadRequest(method: 'POST' | 'GET', path: string, body: unknown, messagePart: RegExp) {
  const answer = await call(tc, method, path, body === undefined ? {} : { body });
  expect({ status: answer.status, code: answer.body?.code }).toEqual({
    status: 400,
    code: 'INVALID_REQUEST',
  });
  expect(answer.body.message).toMatch(messagePart);
  expect(answer.headers['content-type']).toMatch(/application\/json/);
}

test('malformed JSON answers 400 INVALID_REQUEST as JSON', async () => {
  const answer = await call(tc, 'POST', p.services, { rawBody: '{"name": ' });
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ code: 'INVALID_REQUEST', message: expect.stringMatching(/malformed JSON/) });
});

test('a body that is not an object, or a missing body where one is required, is 400', async () => {
  await expectBadRequest('POST', p.services, [1, 2], /body: must be a JSON object/);
  const missing = await call(tc, 'POST', p.services);
  expect(missing.status).toBe(400);
  expect(missing.body.code).toBe('INVALID_REQUEST');
});

test('missing and wrongly typed fields name the field', async () => {
  await expectBadRequest('POST', p.services, {}, /^name: /);
  await expectBadRequest('POST', p.services, { name: 42 }, /^name: /);
  await expectBadRequest('POST', p.services, { name: 'x', replica_count: 'two' }, /replica_count: /);
  await expectBadRequest('POST', p.services, { name: 'x', addons: ['nope'] }, /addons\[0\]: /);
  await expectBadRequest('POST', p.services, { name: 'x', surprise: true }, /surprise/);
  await expectBadRequest('POST', p.vpcs, { name: 'n', cidr: '10.0.0.0/16' }, /region_code: /);
  await expectBadRequest('POST', `${p.service(readyId)}/attachToVPC`, {}, /vpc_id: /);
  await expectBadRequest(
    'POST',
    `${p.service(readyId)}/setEnvironment`,
    { environment: 'STAGING' },
    /environment: /,
  );
  await expectBadRequest('POST', `${p.service(readyId)}/updatePassword`, {}, /password: /);
  await expectBadRequest(
    'POST',
    p.replicaSets(readyId),
    { name: 'r', nodes: 0, cpu_millis: '500', memory_gbs: 2 },
    /nodes: .*; cpu_millis: /,
  );
});

test('sizes outside the allowed pairs are 400, for create, resize and replica sets', async () => {
  await expectBadRequest(
    'POST',
    p.services,
    { name: 'x', cpu_millis: '1000', memory_gbs: '8' },
    /not allowed/,
  );
  await expectBadRequest('POST', p.services, { name: 'x', cpu_millis: '1000' }, /together/);
  await expectBadRequest(
    'POST',
    `${p.service(readyId)}/resize`,
    { cpu_millis: 'shared', memory_gbs: 'shared' },
    /digits/,
  );
  await expectBadRequest(
    'POST',
    `${p.service(readyId)}/resize`,
    { cpu_millis: 2000, memory_gbs: 8 },
    /cpu_millis: /,
  );
  await expectBadRequest(
    'POST',
    `${p.service(readyId)}/resize`,
    { cpu_millis: '3000', memory_gbs: '12' },
    /not allowed/,
  );
  await expectBadRequest(
    'POST',
    p.replicaSets(readyId),
    { name: 'r', nodes: 1, cpu_millis: 1000, memory_gbs: 2 },
    /not allowed/,
  );
});

test('a bad CIDR is 400', async () => {
  for (const cidr of ['10.0.0.0', '10.0.0.0/33', '300.1.1.1/16', 'fd00::/8']) {
    await expectBadRequest('POST', p.vpcs, { name: 'n', cidr, region_code: 'us-east-1' }, /cidr: /);
  }
});

test('a VPC to attach or detach is named by digits, as the newest document has it', async () => {
  for (const action of ['attachToVPC', 'detachFromVPC']) {
    for (const vpcId of ['vpc-0abc', '', ' 12', '12a']) {
      await expectBadRequest(
        'POST',
        `${p.service(readyId)}/${action}`,
        { vpc_id: vpcId },
        /^vpc_id: must be a VPC id, digits only \(e\.g\. "1234567890"\)$/,
      );
    }
  }
});

test('a metric filter needs a value of at least one character', async () => {
  const hour = { from: '2025-01-01T00:00:00Z', to: '2025-01-01T01:00:00Z' };
  await expectBadRequest(
    'POST',
    `${p.service(readyId)}/metrics/series`,
    { name: 'timescale_cloud_database_qps', ...hour, filters: [{ key: 'role', value: '' }] },
    /^filters\[0\]\.value: must have at least one character$/,
  );
});

test('bad HA modes are 400', async () => {
  const path = `${p.service(readyId)}/setHA`;
  await expectBadRequest('POST', path, {}, /replica_count, sync_replica_count or both/);
  await expectBadRequest('POST', path, { replica_count: 3 }, /replica_count: /);
  await expectBadRequest(
    'POST',
    path,
    { replica_count: 1, sync_replica_count: 1 },
    /requires replica_count 2/,
  );
  await expectBadRequest('POST', path, { replica_count: 2, sync_replica_count: 2 }, /sync_replica_count: /);
});

test('PITR without target_time, and unknown fork strategies, are 400', async () => {
  const path = `${p.service(readyId)}/forkService`;
  await expectBadRequest('POST', path, { fork_strategy: 'PITR' }, /target_time: .*required/);
  await expectBadRequest('POST', path, { fork_strategy: 'YESTERDAY' }, /fork_strategy: /);
  await expectBadRequest('POST', path, {}, /fork_strategy: /);
});

test('illegal transitions are 400: start a READY service, stop a PAUSED one', async () => {
  const start = await call(tc, 'POST', `${p.service(readyId)}/start`);
  expect(start.status).toBe(400);
  expect(start.body.code).toBe('INVALID_REQUEST');
  expect((await call(tc, 'POST', `${p.service(readyId)}/stop`)).status).toBe(202);
  tc.advance(tc.cloud.durations.pausing);
  const stopAgain = await call(tc, 'POST', `${p.service(readyId)}/stop`);
  expect(stopAgain.status).toBe(400);
  expect(stopAgain.body.message).toMatch(/PAUSED/);
  const resizePaused = await call(tc, 'POST', `${p.service(readyId)}/resize`, {
    body: { cpu_millis: '1000', memory_gbs: '4' },
  });
  expect(resizePaused.status).toBe(409);
  expect((await call(tc, 'POST', `${p.service(readyId)}/start`)).status).toBe(202);
  tc.advance(tc.cloud.durations.resuming);
});

test('logs query parameters are validated', async () => {
  await expectBadRequest('GET', `${p.service(readyId)}/logs?node=-1`, undefined, /node: /);
  await expectBadRequest('GET', `${p.service(readyId)}/logs?since=yesterday`, undefined, /since: /);
  await expectBadRequest('GET', `${p.service(readyId)}/logs?cursor=bogus`, undefined, /cursor: /);
  await expectBadRequest('GET', `${p.service(readyId)}/logs?colour=blue`, undefined, /colour/);
});

test('unknown resources are 404 NOT_FOUND', async () => {
  for (const path of [
    p.service('zzzzzzzzzz'),
    `${p.service('zzzzzzzzzz')}/start`,
    p.replicaSets('zzzzzzzzzz'),
    p.vpc('1'),
    p.peering('1', '2'),
  ]) {
    const method = path.endsWith('/start') ? 'POST' : 'GET';
    const answer = await call(tc, method, path);
    expect([path, answer.status, answer.body.code]).toEqual([path, 404, 'NOT_FOUND']);
  }
  const attach = await call(tc, 'POST', `${p.service(readyId)}/attachToVPC`, { body: { vpc_id: '404404' } });
  expect(attach.status).toBe(404);
});

test('unknown routes are 404 NOT_FOUND JSON, inside and outside the prefix; a known path with another method is 405', async () => {
  for (const [method, path] of [
    ['GET', '/nope'],
    ['GET', `${tc.cloud.origin}/elsewhere`],
  ] as const) {
    const answer = await call(tc, method, path);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
  }
  const wrongMethod = await call(tc, 'DELETE', '/projects');
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.body).toEqual({ code: 'METHOD_NOT_ALLOWED', message: expect.any(String) });
});
