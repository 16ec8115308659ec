// API conformance: what the vendor's own client (tiger-cli v0.21.2) shows of the real API beyond spec.md:
// `environment_tag` on create and fork, `GET /auth/info`, "shared" sizes on create and fork (shown as null
// sizes), and a read replica set's id answering under /services/{id} as a standby service.
// (The typed client checks each success status; these cases need no /__sim/ request counts.)
import { call } from '../helpers/local-cloud';
import {
  expectCloudError,
  startConformanceCloud,
  type ConformanceCloud,
} from '../helpers/api-conformance-fixtures';

let fx: ConformanceCloud;
let project: { project_id: string };

beforeAll(async () => {
  // Two projects, so the per-project key pair case has a second project to name.
  fx = await startConformanceCloud({ config: { projects: [{ name: 'first' }, { name: 'second' }] } });
  project = { project_id: fx.projectId };
});
afterAll(() => fx.close());

describe('service.create', () => {
  it('applies environment_tag to metadata.environment (DEV when absent)', async () => {
    const prod = await fx.client.call('service.create', { ...project, name: 'p', environment_tag: 'PROD' });
    expect(prod.metadata).toEqual({ environment: 'PROD' });
    const dev = await fx.client.service.create({ ...project, name: 'd' });
    expect(dev.metadata).toEqual({ environment: 'DEV' });
    fx.settle();
    expect((await fx.getService(prod.service_id!)).metadata).toEqual({ environment: 'PROD' });
  });

  it('rejects an environment_tag other than DEV or PROD', async () => {
    const body = { name: 'x', environment_tag: 'STAGING' };
    const answer = await call(fx.tc, 'POST', `/projects/${fx.projectId}/services`, { body });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('environment_tag'),
    });
  });

  it('shows a shared service with null CPU and memory in resources[].spec', async () => {
    const body = { ...project, name: 'free', cpu_millis: 'shared', memory_gbs: 'shared' };
    const created = await fx.client.call('service.create', body);
    expect(created.resources).toEqual([
      { id: expect.any(String), spec: { cpu_millis: null, memory_gbs: null, volume_type: '' } },
    ]);
  });
});

describe('service.fork', () => {
  it('accepts "shared" sizes', async () => {
    const parent = await fx.readyService('big-parent');
    const input = { ...project, service_id: parent, fork_strategy: 'NOW' as const };
    const fork = await fx.client.call('service.fork', {
      ...input,
      cpu_millis: 'shared',
      memory_gbs: 'shared',
    });
    expect(fork.resources?.[0]?.spec).toEqual({ cpu_millis: null, memory_gbs: null, volume_type: '' });
    expect(fork.forked_from).toEqual({ is_standby: false, project_id: fx.projectId, service_id: parent });
  });

  it("applies environment_tag to the fork (DEV when absent, not the parent's)", async () => {
    const parent = await fx.readyService('prod-parent');
    await fx.client.call('service.setEnvironment', { ...project, service_id: parent, environment: 'PROD' });
    expect((await fx.getService(parent)).metadata).toEqual({ environment: 'PROD' });
    const input = { ...project, service_id: parent, fork_strategy: 'NOW' as const };
    const prod = await fx.client.call('service.fork', { ...input, name: 'f-prod', environment_tag: 'PROD' });
    expect(prod.metadata).toEqual({ environment: 'PROD' });
    const plain = await fx.client.call('service.fork', { ...input, name: 'f-plain' });
    expect(plain.metadata).toEqual({ environment: 'DEV' });
    const path = `/projects/${fx.projectId}/services/${parent}/forkService`;
    const bad = await call(fx.tc, 'POST', path, { body: { fork_strategy: 'NOW', environment_tag: 'QA' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('environment_tag'),
    });
  });

  it('still rejects half a size and unknown pairs', async () => {
    const parent = await fx.readyService('fussy-parent');
    const path = `/projects/${fx.projectId}/services/${parent}/forkService`;
    for (const sizes of [{ cpu_millis: 'shared' }, { cpu_millis: 'shared', memory_gbs: '4' }]) {
      const answer = await call(fx.tc, 'POST', path, { body: { fork_strategy: 'NOW', ...sizes } });
      expect([sizes, answer.status]).toEqual([sizes, 400]);
    }
  });
});

describe('service.get of a read replica set id', () => {
  it('answers a standby service whose forked_from names the primary', async () => {
    const { serviceId, setId } = await fx.activeReplicaSet();
    const set = (await fx.replicaSet(serviceId, setId))!;
    const standby = await fx.client.call('service.get', { ...project, service_id: setId });
    const primary = await fx.getService(serviceId);
    expect(standby).toEqual({
      service_id: setId,
      project_id: fx.projectId,
      name: set.name,
      region_code: primary.region_code,
      service_type: primary.service_type,
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      paused: false,
      status: 'READY',
      endpoint: set.endpoint,
      connection_pooler: set.connection_pooler,
      forked_from: { is_standby: true, project_id: fx.projectId, service_id: serviceId },
      metadata: { environment: 'DEV' },
      resources: [{ id: setId, spec: { cpu_millis: 1000, memory_gbs: 4, volume_type: '' } }],
    });
    expect(standby.initial_password).toBeUndefined();
    // Created with the set, after the primary.
    expect(Date.parse(standby.created!)).toBeGreaterThanOrEqual(Date.parse(primary.created!));
  });

  it('is not listed as a service, and is gone (404) once the set is deleted', async () => {
    const { serviceId, setId } = await fx.activeReplicaSet();
    const listed = await fx.client.service.list(project);
    expect(listed.map((s) => s.service_id)).not.toContain(setId);
    await fx.client.replicaSet.delete({ ...project, service_id: serviceId, replica_set_id: setId });
    expect((await fx.getService(setId)).status).toBe('DELETING');
    fx.settle();
    await expectCloudError(fx.getService(setId), { code: 'CLOUD_API_NOT_FOUND', status: 404 });
  });

  it('answers only GET: other service operations on a replica set id are 404', async () => {
    const { setId } = await fx.activeReplicaSet();
    await expectCloudError(fx.client.service.stop({ ...project, service_id: setId }), {
      code: 'CLOUD_API_NOT_FOUND',
      status: 404,
    });
  });
});

describe('auth.info', () => {
  it('answers 401 without valid credentials', async () => {
    const answer = await call(fx.tc, 'GET', '/auth/info', { authorization: null });
    expect(answer.status).toBe(401);
    const wrong = fx.clientFor({ secretKey: 'not-the-secret' });
    await expectCloudError(wrong.auth.info({}), { code: 'CLOUD_API_UNAUTHORIZED', status: 401 });
  });

  it('names the key pair of each project', async () => {
    const [first, second] = fx.tc.cloud.projects;
    expect(second).toBeDefined();
    expect((await fx.client.auth.info({})).apiKey).toMatchObject({
      public_key: first!.access_key,
      project: { id: first!.id },
    });
    const info = await fx.clientFor({}, second!).auth.info({});
    expect(info.apiKey).toMatchObject({ public_key: second!.access_key, project: { id: second!.id } });
  });
});
