// The omitField fault over real HTTP, in each dialect: a rule in the configuration or from the
// control API leaves its field out of the operation's answers (for `times` answers), or sends it
// null, the answer still conforms to the dialect's document and reaches tideline's typed client,
// and a path the answer cannot have is refused with where it stops.
import type { Service } from '../../cloud/models';
import {
  DIALECTS,
  call,
  cloudApiClient,
  paths,
  startTestCloud,
  type TestCloud,
} from '../helpers/local-cloud';

describe.each(DIALECTS)('the %s dialect', (dialect) => {
  let tc: TestCloud;
  let p: ReturnType<typeof paths>;

  beforeAll(async () => {
    tc = await startTestCloud({
      manualClock: true,
      dialect,
      // From the start, service.list answers without any service's endpoint host, every time.
      faults: [{ action: 'service.list', kind: 'omitField', field: '*.endpoint.host' }],
    });
    p = paths(tc);
  });
  afterAll(() => tc.close());
  afterEach(async () => {
    expect((await call(tc, 'DELETE', `${tc.controlUrl}/faults`)).status).toBe(204);
  });

  async function readyService(name: string): Promise<string> {
    const created = await call<Service>(tc, 'POST', p.services, {
      body: { name, cpu_millis: '1000', memory_gbs: '4' },
    });
    expect(created.status).toBe(202);
    tc.advance(Math.max(...Object.values(tc.cloud.durations)) * 3);
    return created.body.service_id!;
  }

  async function addFault(rule: Record<string, unknown>) {
    return call<{ rules: Record<string, unknown>[] }>(tc, 'POST', `${tc.controlUrl}/faults`, { body: rule });
  }

  test('a rule in the configuration leaves its field out of every answer of its operation', async () => {
    await readyService('listed');
    const listed = await call<Record<string, unknown>[]>(tc, 'GET', p.services);
    expect(listed.status).toBe(200);
    expect(listed.body.length).toBeGreaterThan(0);
    for (const service of listed.body) {
      expect(service.endpoint).toBeDefined();
      expect(service.endpoint).not.toHaveProperty('host');
      expect(service.endpoint).toHaveProperty('port');
    }
  });

  // spec.md lets a service leave its resources out; the current document requires the list but
  // lets it be null (a nil slice of the vendor's Go type).
  const noResources = {
    action: 'service.get',
    kind: 'omitField',
    field: 'resources',
    asNull: dialect === 'current',
  };

  test('a service.get answers without its resources for `times` answers, then with them again', async () => {
    const id = await readyService('no-size');
    const added = await addFault({ ...noResources, times: 1 });
    expect(added.status).toBe(201);
    expect(added.body.rules[0]).toMatchObject({ kind: 'omitField', field: 'resources', remaining: 1 });

    const without = await call<Record<string, unknown>>(tc, 'GET', p.service(id));
    expect(without.status).toBe(200);
    if (noResources.asNull) expect(without.body.resources).toBeNull();
    else expect(without.body).not.toHaveProperty('resources');
    expect(without.body).toMatchObject({ service_id: id, status: 'READY' });

    const again = await call<Service>(tc, 'GET', p.service(id));
    expect(again.body.resources?.[0]?.spec).toMatchObject({ cpu_millis: 1000, memory_gbs: 4 });
  });

  test("tideline's typed client reads a service without its resources, or without its size", async () => {
    const id = await readyService('typed-no-size');
    const field = 'resources.0.spec.cpu_millis';
    expect((await addFault({ ...noResources, times: 1 })).status).toBe(201);
    expect((await addFault({ action: '*', kind: 'omitField', field })).status).toBe(201);
    const client = cloudApiClient(tc);
    try {
      const read = () => client.service.get({ project_id: tc.project.id, service_id: id });
      const withoutResources = await read();
      expect(withoutResources).toMatchObject({ service_id: id, status: 'READY' });
      expect(withoutResources.resources).toBeUndefined();
      const withoutSize = await read();
      expect(withoutSize.resources?.[0]?.spec).not.toHaveProperty('cpu_millis');
      expect(withoutSize.resources?.[0]?.spec?.memory_gbs).toBe(4);
    } finally {
      await client.close();
    }
  });

  test('the control API refuses a path the answer cannot have, saying where it stops', async () => {
    const refused = await addFault({ action: 'service.get', kind: 'omitField', field: 'resources.0.size' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(
      'service.get: resources.0 has no field \\"size\\"; it has id, spec',
    );
  });
});
