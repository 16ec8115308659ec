// The catalogue-driven router and the control API (/__sim): every operation is served, success
// bodies match the catalogue's response schemas, and request counts are reported per action.
import { inspect } from 'node:util';
import { ACTION_NAMES, operations, type OperationDef } from '../../cloud/operations';
import type { Service, Vpc } from '../../cloud/models';
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

let tc: TestCloud;
let p: ReturnType<typeof paths>;

beforeAll(async () => {
  tc = await startTestCloud({ manualClock: true, seed: 3 });
  p = paths(tc);
});
afterAll(() => tc.close());

function concretePath(def: OperationDef, ids: Record<string, string>): string {
  return def.path.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name] ?? 'x');
}

test('every catalogue operation has a route (unknown ids give a resource 404, never "no route")', async () => {
  for (const action of ACTION_NAMES) {
    const def: OperationDef = operations[action];
    const path = concretePath(def, {
      project_id: tc.project.id,
      service_id: 'zzzzzzzzzz',
      vpc_id: '1',
      peering_id: '2',
      replica_set_id: 'yyyyyyyyyy',
    });
    const answer = await call(tc, def.method, path);
    expect([action, String(answer.body?.message ?? '')]).not.toEqual([
      action,
      expect.stringMatching(/^no route/),
    ]);
    expect(answer.status).toBeLessThan(500);
  }
});

test('success answers match the catalogue’s response schemas and success statuses', async () => {
  const d = tc.cloud.durations;
  const vpc = await call<Vpc & { id: string }>(tc, 'POST', p.vpcs, {
    body: { name: 'n', cidr: '10.0.0.0/16', region_code: 'us-east-1' },
  });
  const created = await call<Service & { service_id: string }>(tc, 'POST', p.services, {
    body: { name: 'shape' },
  });
  tc.advance(d.queued + d.configuring + d.firstSnapshot + d.vpcProvisioning);
  const id = created.body.service_id;
  const checks: Array<[keyof typeof operations, number, unknown]> = [
    ['service.create', created.status, created.body],
    ['vpc.create', vpc.status, vpc.body],
  ];
  const probe = async (
    action: keyof typeof operations,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ) => {
    const answer = await call(tc, method, path, body === undefined ? {} : { body });
    checks.push([action, answer.status, answer.body]);
    return answer;
  };
  await probe('project.list', 'GET', '/projects');
  await probe('vpc.list', 'GET', p.vpcs);
  await probe('vpc.get', 'GET', p.vpc(vpc.body.id));
  await probe('peering.create', 'POST', p.peerings(vpc.body.id), {
    peer_account_id: '1',
    peer_region_code: 'r',
    peer_vpc_id: 'v',
  });
  await probe('peering.list', 'GET', p.peerings(vpc.body.id));
  await probe('service.list', 'GET', p.services);
  await probe('service.get', 'GET', p.service(id));
  await probe('service.logs', 'GET', `${p.service(id)}/logs`);
  await probe('replicaSet.create', 'POST', p.replicaSets(id), {
    name: 'r',
    nodes: 1,
    cpu_millis: 500,
    memory_gbs: 2,
  });
  await probe('replicaSet.list', 'GET', p.replicaSets(id));
  await probe('service.setHA', 'POST', `${p.service(id)}/setHA`, { replica_count: 1 });

  for (const [action, status, body] of checks) {
    const def: OperationDef = operations[action];
    expect([action, status]).toEqual([action, def.successStatus]);
    const parsed = def.response!.safeParse(body);
    expect([action, parsed.success ? 'valid' : parsed.error.message]).toEqual([action, 'valid']);
  }
});

test('stats count requests per action and per status; reset clears them', async () => {
  expect((await call(tc, 'POST', `${tc.controlUrl}/stats/reset`)).status).toBe(204);
  await call(tc, 'GET', p.services);
  await call(tc, 'GET', p.services);
  await call(tc, 'GET', p.service('zzzzzzzzzz'));
  await call(tc, 'GET', '/projects', { authorization: null });
  await call(tc, 'GET', '/no-such-route');
  const stats = await call(tc, 'GET', `${tc.controlUrl}/stats`);
  expect(stats.status).toBe(200);
  expect(stats.body).toEqual({
    total: 5,
    byStatus: { '200': 2, '404': 2, '401': 1 },
    byAction: {
      'service.list': { total: 2, byStatus: { '200': 2 } },
      'service.get': { total: 1, byStatus: { '404': 1 } },
      'project.list': { total: 1, byStatus: { '401': 1 } },
      unknown: { total: 1, byStatus: { '404': 1 } },
    },
  });
  expect(tc.cloud.stats().total).toBe(5);
});

test('health, state dump without secrets, and reset', async () => {
  const health = await call(tc, 'GET', `${tc.controlUrl}/health`);
  expect(health.body).toMatchObject({ status: 'ok', url: tc.url, seed: 3, timeScale: 1 });
  const state = await call(tc, 'GET', `${tc.controlUrl}/state`);
  expect(state.status).toBe(200);
  expect((state.body.services as unknown[]).length).toBeGreaterThan(0);
  expect(state.body.projects).toEqual([{ id: tc.project.id, name: tc.project.name }]);
  expect(JSON.stringify(state.body)).not.toContain(tc.project.secret_key);

  expect((await call(tc, 'POST', `${tc.controlUrl}/reset`)).status).toBe(204);
  expect((await call(tc, 'GET', p.services)).body).toEqual([]);
  expect((await call(tc, 'GET', `${tc.controlUrl}/stats`)).body).toMatchObject({
    total: 1,
  });
});

test('control API errors are JSON too', async () => {
  const bad = await call(tc, 'POST', `${tc.controlUrl}/faults`, {
    body: { action: 'service.create', kind: 'explode' },
  });
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual({ code: 'INVALID_REQUEST', message: expect.any(String) });
  const missing = await call(tc, 'DELETE', `${tc.controlUrl}/faults/f999`);
  expect(missing.status).toBe(404);
  expect(missing.body.code).toBe('NOT_FOUND');
});

test('the same seed gives the same IDs', async () => {
  const ids = async (seed: number) => {
    const cloud = await startTestCloud({ seed });
    try {
      const service = await call<Service>(cloud, 'POST', paths(cloud).services, { body: { name: 's' } });
      const vpc = await call<Vpc>(cloud, 'POST', paths(cloud).vpcs, {
        body: { name: 'n', cidr: '10.0.0.0/16', region_code: 'us-east-1' },
      });
      return [cloud.project.id, service.body.service_id, vpc.body.id];
    } finally {
      await cloud.close();
    }
  };
  const first = await ids(77);
  expect(await ids(77)).toEqual(first);
  expect(await ids(78)).not.toEqual(first);
});

test('inspecting the handle never shows a secret key', () => {
  expect(inspect(tc.cloud, { depth: 5 })).not.toContain(tc.project.secret_key);
  expect(inspect(tc.project)).toContain('[redacted]');
  expect(tc.project.secret_key).toEqual(expect.any(String));
});
