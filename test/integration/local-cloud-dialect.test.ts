// The local cloud's two dialects over real HTTP: the same scenario runs against a `seed` and a
// `current` cloud (manual clocks), and every answer the current dialect reshapes is checked in
// both — the current one as the vendor's document has it, the seed one unchanged (spec.md).
import { EXTRA_FIELD } from '../../local-cloud/dialect';
import type { Dialect } from '../../local-cloud/server';
import {
  call,
  cloudApiClient,
  paths,
  startTestCloud,
  type HttpAnswer,
  type TestCloud,
} from '../helpers/local-cloud';

type Answers = Record<string, HttpAnswer<Record<string, unknown>>>;
type Json = Record<string, unknown>;

const clouds: TestCloud[] = [];
const answers = {} as Record<Dialect, Answers>;

/** Every answer the dialects differ in, in one run: lifecycles move by advancing the clock. */
async function scenario(tc: TestCloud): Promise<Answers> {
  const p = paths(tc);
  const d = tc.cloud.durations;
  const out: Answers = {};
  out.create = await call(tc, 'POST', p.services, { body: { name: 'ts', addons: ['time-series'] } });
  const id = String(out.create.body.service_id);
  tc.advance(d.queued + d.configuring + d.firstSnapshot + 600_000);
  out.get = await call(tc, 'GET', p.service(id));
  out.list = await call(tc, 'GET', p.services);
  const vpc = await call(tc, 'POST', p.vpcs, {
    body: { name: 'net', cidr: '10.1.0.0/16', region_code: 'us-east-1' },
  });
  const vpcId = String(vpc.body.id);
  out.vpcRename = await call(tc, 'POST', `${p.vpc(vpcId)}/rename`, { body: { name: 'renamed' } });
  out.vpcAfterRename = await call(tc, 'GET', p.vpc(vpcId));
  tc.advance(d.vpcProvisioning);
  out.attach = await call(tc, 'POST', `${p.service(id)}/attachToVPC`, { body: { vpc_id: vpcId } });
  tc.advance(d.vpcAttach);
  out.attached = await call(tc, 'GET', p.service(id));
  out.updatePassword = await call(tc, 'POST', `${p.service(id)}/updatePassword`, {
    body: { password: 'a-long-new-password' },
  });
  out.rename = await call(tc, 'POST', `${p.service(id)}/rename`, { body: { name: 'ts-renamed' } });
  out.resize = await call(tc, 'POST', `${p.service(id)}/resize`, {
    body: { cpu_millis: '1000', memory_gbs: '4' },
  });
  tc.advance(d.resize);
  out.setHA = await call(tc, 'POST', `${p.service(id)}/setHA`, { body: { replica_count: 1 } });
  tc.advance(d.setHA);
  out.stop = await call(tc, 'POST', `${p.service(id)}/stop`);
  tc.advance(d.pausing);
  out.paused = await call(tc, 'GET', p.service(id));
  out.start = await call(tc, 'POST', `${p.service(id)}/start`);
  tc.advance(d.resuming);
  out.fork = await call(tc, 'POST', `${p.service(id)}/forkService`, {
    body: { fork_strategy: 'LAST_SNAPSHOT', name: 'ts-fork' },
  });
  out.replicaSetCreate = await call(tc, 'POST', p.replicaSets(id), {
    body: { name: 'readers', nodes: 1, cpu_millis: 1000, memory_gbs: 4 },
  });
  const setId = String(out.replicaSetCreate.body.id);
  tc.advance(d.replicaSetCreating);
  out.withReplicas = await call(tc, 'GET', p.service(id));
  out.standby = await call(tc, 'GET', p.service(setId));
  out.replicaSetResize = await call(tc, 'POST', `${p.replicaSet(id, setId)}/resize`, {
    body: { cpu_millis: '2000', memory_gbs: '8' },
  });
  out.logs = await call(tc, 'GET', `${p.service(id)}/logs`);
  out.authInfo = await call(tc, 'GET', '/auth/info');
  out.notFound = await call(tc, 'GET', p.service('nosuchsvc0'));
  return out;
}

beforeAll(async () => {
  for (const dialect of ['seed', 'current'] as const) {
    const tc = await startTestCloud({ manualClock: true, seed: 7, dialect, logs: { intervalMs: 1000 } });
    clouds.push(tc);
    answers[dialect] = await scenario(tc);
  }
});
afterAll(() => Promise.all(clouds.map((tc) => tc.close())));

const SERVICE_ANSWERS = [
  'create',
  'get',
  'attached',
  'rename',
  'resize',
  'setHA',
  'stop',
  'paused',
  'start',
  'fork',
  'withReplicas',
  'standby',
] as const;

function body(dialect: Dialect, label: string): Json {
  const answer = answers[dialect][label];
  if (!answer) throw new Error(`no answer ${label}`);
  return answer.body;
}

function hasExtraAnywhere(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasExtraAnywhere);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, field]) => key === EXTRA_FIELD || hasExtraAnywhere(field));
}

test.each(['seed', 'current'] as const)('%s: every call of the scenario but the 404 succeeded', (dialect) => {
  const statuses = Object.entries(answers[dialect]).map(([label, answer]) => [label, answer.status < 300]);
  expect(statuses).toEqual(Object.keys(answers[dialect]).map((label) => [label, label !== 'notFound']));
});

describe('current dialect', () => {
  const c = (label: string) => body('current', label);

  test.each(SERVICE_ANSWERS)('%s: a service with vpc_endpoint only, TIMESCALEDB, a metrics key', (label) => {
    const service = c(label);
    expect(service).not.toHaveProperty('vpcEndpoint');
    expect(service.service_type).toBe('TIMESCALEDB');
    expect(service).toHaveProperty('metrics');
    expect(service[EXTRA_FIELD]).toEqual(expect.any(Object));
    expect((service.endpoint as Json)[EXTRA_FIELD]).toEqual(expect.any(String));
  });

  test('every service of a list is reshaped', () => {
    const list = c('list') as unknown as Json[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ service_type: 'TIMESCALEDB', metrics: expect.any(Object) });
    expect(list[0]).toHaveProperty(EXTRA_FIELD);
  });

  test('vpc_endpoint once attached, with the VPC id and an unknown field', () => {
    expect(c('get')).not.toHaveProperty('vpc_endpoint');
    const attached = c('attached');
    expect(attached.vpc_endpoint).toEqual({
      host: expect.any(String),
      port: expect.any(Number),
      vpc_id: String(body('current', 'vpcAfterRename').id),
      [EXTRA_FIELD]: expect.any(String),
    });
  });

  test('metrics: figures when READY, null when not READY and in a standby view', () => {
    expect(c('get').metrics).toEqual({
      milli_cpu: expect.any(Number),
      memory_mb: expect.any(Number),
      storage_mb: expect.any(Number),
    });
    expect(c('create')).toMatchObject({ status: 'QUEUED', metrics: null });
    expect(c('paused')).toMatchObject({ status: 'PAUSED', metrics: null });
    expect(c('standby')).toMatchObject({ forked_from: { is_standby: true }, metrics: null });
  });

  test('read replica sets inside a service carry unknown fields in them and their endpoints', () => {
    const sets = c('withReplicas').read_replica_sets as Json[];
    expect(sets).toHaveLength(1);
    expect(sets[0]).toHaveProperty(EXTRA_FIELD);
    expect((sets[0]!.endpoint as Json)[EXTRA_FIELD]).toEqual(expect.any(String));
    expect(c('create').read_replica_sets).toEqual([]);
  });

  test('logs: last_cursor only, entries and the legacy logs kept', () => {
    const logs = c('logs');
    expect(answers.current.logs!.status).toBe(200);
    expect(logs.last_cursor).toEqual(expect.any(String));
    expect(logs).not.toHaveProperty('lastCursor');
    expect(logs.entries).toHaveLength(500);
    expect(logs.logs).toEqual((logs.entries as Json[]).map((entry) => entry.message));
  });

  test('auth.info: api_key only, with what the newest tiger-cli reads from it', () => {
    const info = c('authInfo');
    expect(info).not.toHaveProperty('apiKey');
    // `auth login` keeps api_key.project.id; `auth status` shows the rest.
    const project = clouds[1]!.project;
    expect(info).toMatchObject({
      type: 'apiKey',
      api_key: {
        public_key: project.access_key,
        name: expect.any(String),
        created: expect.any(String),
        project: { id: project.id, name: project.name, plan_type: expect.any(String) },
        issuing_user: { name: expect.any(String), email: expect.any(String) },
      },
    });
  });

  test('vpc.rename answers {message}; the VPC has its new name', () => {
    expect(answers.current.vpcRename).toMatchObject({ status: 200, body: { message: expect.any(String) } });
    expect(c('vpcRename')).not.toHaveProperty('id');
    expect(c('vpcAfterRename')).toMatchObject({ name: 'renamed' });
  });

  test('updatePassword answers 200 {message}; replicaSet.resize 202 {message}', () => {
    expect(answers.current.updatePassword).toMatchObject({
      status: 200,
      body: { message: expect.any(String) },
    });
    expect(answers.current.replicaSetResize).toMatchObject({
      status: 202,
      body: { message: expect.any(String) },
    });
  });

  test('error answers are the same as in seed', () => {
    expect(answers.current.notFound!.status).toBe(404);
    expect(c('notFound')).toEqual(body('seed', 'notFound'));
  });

  test("tideline's client reads current answers with both names filled", async () => {
    const client = cloudApiClient(clouds[1]!);
    try {
      const project_id = clouds[1]!.project.id;
      const service_id = String(c('get').service_id);
      const service = await client.service.get({ project_id, service_id });
      expect(service.vpc_endpoint?.host).toEqual(expect.any(String));
      expect(service.vpcEndpoint).toEqual(service.vpc_endpoint);
      expect(service).not.toHaveProperty(EXTRA_FIELD);
    } finally {
      await client.close();
    }
  });
});

describe('seed dialect (unchanged)', () => {
  const s = (label: string) => body('seed', label);

  test('no unknown fields anywhere, statuses as the catalogue has them', () => {
    for (const [label, answer] of Object.entries(answers.seed)) {
      expect({ label, extra: hasExtraAnywhere(answer.body) }).toEqual({ label, extra: false });
    }
    expect(answers.seed.updatePassword).toMatchObject({ status: 204, body: undefined });
    expect(answers.seed.replicaSetResize).toMatchObject({ status: 202, body: undefined });
    expect(answers.seed.vpcRename).toMatchObject({ status: 200, body: { name: 'renamed' } });
  });

  test.each(SERVICE_ANSWERS)('%s: NEUTRALDB and no vpc_endpoint', (label) => {
    expect(s(label).service_type).toBe('NEUTRALDB');
    expect(s(label)).not.toHaveProperty('vpc_endpoint');
  });

  test('vpcEndpoint, metrics as before, lastCursor and apiKey', () => {
    expect(s('attached').vpcEndpoint).toEqual({
      host: expect.any(String),
      port: expect.any(Number),
      vpc_id: expect.any(String),
    });
    expect(s('create').metrics).toEqual(expect.any(Object));
    expect(s('standby')).not.toHaveProperty('metrics');
    expect(s('logs').lastCursor).toEqual(expect.any(String));
    expect(s('logs')).not.toHaveProperty('last_cursor');
    expect(s('authInfo').apiKey).toEqual(expect.any(Object));
    expect(s('authInfo')).not.toHaveProperty('api_key');
  });

  test('the current answers differ from seed only in the dialect fields (same ids, same seed)', () => {
    const strip = (value: Json): Json => {
      const { vpcEndpoint, vpc_endpoint, service_type, ...rest } = value;
      return {
        ...rest,
        vpc: vpcEndpoint ?? vpc_endpoint,
        type: service_type === 'TIMESCALEDB' ? 'NEUTRALDB' : service_type,
      };
    };
    const withoutExtra = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (key, field: unknown) => (key === EXTRA_FIELD ? undefined : field)));
    const seed = strip(s('attached'));
    const current = strip(withoutExtra(body('current', 'attached')) as Json);
    expect(current).toEqual(seed);
  });
});
