// API conformance: 400 answers through the typed client. Bad bodies are sent unchecked (validateRequests:
// false) so the local cloud judges them; the validating client must refuse the same bodies with the
// same code without sending anything. Illegal transitions are 400 from the server.
import type { ActionInput, ActionName } from '../../cloud/operations';
import type { CloudClient } from '../../cloud/client';
import {
  expectCloudError,
  startConformanceCloud,
  type ConformanceCloud,
} from '../helpers/api-conformance-fixtures';

let fx: ConformanceCloud;
let project: { project_id: string };
/** A READY service and a VPC every case may aim at. */
let service_id: string;
let vpc_id: string;

beforeAll(async () => {
  fx = await startConformanceCloud();
  project = { project_id: fx.projectId };
  service_id = await fx.readyService('target');
  vpc_id = (await fx.readyVpc()).id;
});
afterAll(() => fx.close());

const BAD_REQUEST = {
  code: 'CLOUD_API_BAD_REQUEST',
  status: 400,
  apiCode: 'INVALID_REQUEST',
  retryable: false,
} as const;

/** Sends any input, typed or not: these tests exist to send what the types forbid. */
function send(client: CloudClient, action: ActionName, input: Record<string, unknown>) {
  return client.call(action, input as ActionInput<typeof action>);
}

/** Every service (with its replica sets) and VPC (with its peerings) of the project. */
async function resources() {
  const services = await fx.client.service.list(project);
  const vpcs = await fx.client.vpc.list(project);
  const peerings = await Promise.all(
    vpcs.map((vpc) => fx.client.peering.list({ ...project, vpc_id: vpc.id! })),
  );
  return { services, vpcs, peerings };
}

type BadCase = [label: string, action: ActionName, body: () => Record<string, unknown>];

const badBodies: BadCase[] = [
  [
    'create: size outside the allowed pairs',
    'service.create',
    () => ({ name: 'x', cpu_millis: '1000', memory_gbs: '8' }),
  ],
  ['create: cpu without memory', 'service.create', () => ({ name: 'x', cpu_millis: '1000' })],
  ['create: sizes as numbers', 'service.create', () => ({ name: 'x', cpu_millis: 1000, memory_gbs: 4 })],
  ['create: no name', 'service.create', () => ({ addons: ['time-series'] })],
  ['create: unknown addon', 'service.create', () => ({ name: 'x', addons: ['graph'] })],
  ['create: 3 HA replicas', 'service.create', () => ({ name: 'x', replica_count: 3 })],
  ['create: unknown field', 'service.create', () => ({ name: 'x', colour: 'blue' })],
  [
    'resize: size outside the allowed pairs',
    'service.resize',
    () => ({ service_id, cpu_millis: '3000', memory_gbs: '12' }),
  ],
  [
    'resize: shared is not a resize target',
    'service.resize',
    () => ({ service_id, cpu_millis: 'shared', memory_gbs: 'shared' }),
  ],
  ['resize: memory missing', 'service.resize', () => ({ service_id, cpu_millis: '2000' })],
  [
    'vpc: prefix beyond /32',
    'vpc.create',
    () => ({ name: 'n', cidr: '10.0.0.0/33', region_code: 'us-east-1' }),
  ],
  [
    'vpc: octet above 255',
    'vpc.create',
    () => ({ name: 'n', cidr: '256.0.0.0/8', region_code: 'us-east-1' }),
  ],
  ['vpc: no prefix length', 'vpc.create', () => ({ name: 'n', cidr: '10.0.0.0', region_code: 'us-east-1' })],
  ['vpc: no region', 'vpc.create', () => ({ name: 'n', cidr: '10.0.0.0/16' })],
  ['vpc rename: empty name', 'vpc.rename', () => ({ vpc_id, name: '' })],
  [
    'peering: no peer VPC',
    'peering.create',
    () => ({ vpc_id, peer_account_id: '1', peer_region_code: 'us-east-1' }),
  ],
  ['setHA: 3 replicas', 'service.setHA', () => ({ service_id, replica_count: 3 })],
  [
    'setHA: sync replica with 1 replica',
    'service.setHA',
    () => ({ service_id, replica_count: 1, sync_replica_count: 1 }),
  ],
  [
    'setHA: 2 sync replicas',
    'service.setHA',
    () => ({ service_id, replica_count: 2, sync_replica_count: 2 }),
  ],
  ['setHA: empty body', 'service.setHA', () => ({ service_id })],
  ['fork: PITR without target_time', 'service.fork', () => ({ service_id, fork_strategy: 'PITR' })],
  ['fork: unknown strategy', 'service.fork', () => ({ service_id, fork_strategy: 'SOMETIMES' })],
  [
    'fork: target_time not a date-time',
    'service.fork',
    () => ({ service_id, fork_strategy: 'PITR', target_time: 'yesterday' }),
  ],
  ['attach: no vpc_id', 'service.attachToVpc', () => ({ service_id })],
  ['setEnvironment: STAGING', 'service.setEnvironment', () => ({ service_id, environment: 'STAGING' })],
  [
    'replica set: sizes as strings',
    'replicaSet.create',
    () => ({ service_id, name: 'r', nodes: 1, cpu_millis: '1000', memory_gbs: '4' }),
  ],
  [
    'replica set: zero nodes',
    'replicaSet.create',
    () => ({ service_id, name: 'r', nodes: 0, cpu_millis: 1000, memory_gbs: 4 }),
  ],
  [
    'replica set resize: numbers',
    'replicaSet.resize',
    () => ({ service_id, replica_set_id: 'abcdefghij', cpu_millis: 1000, memory_gbs: 4 }),
  ],
];

describe.each(badBodies)('%s', (_label, action, body) => {
  test('the local cloud answers 400 INVALID_REQUEST and nothing changes', async () => {
    const before = await resources();
    await expectCloudError(send(fx.raw, action, { ...project, ...body() }), BAD_REQUEST);
    expect(await resources()).toEqual(before);
  });

  test('the validating client refuses it with the same code, without sending it', async () => {
    const before = (await fx.stats()).total;
    const error = await expectCloudError(send(fx.client, action, { ...project, ...body() }), {
      code: 'CLOUD_API_BAD_REQUEST',
      status: undefined,
    });
    expect(error.message).toContain('not sent');
    // Control API reads are not counted, so any change in the total is a request that went out.
    expect((await fx.stats()).total).toBe(before);
  });
});

test('a replica set size outside the allowed pairs is refused by the local cloud', async () => {
  const reader = await fx.readyService('sized', true);
  const input = { ...project, service_id: reader, name: 'r', nodes: 1, cpu_millis: 3000, memory_gbs: 12 };
  await expectCloudError(fx.client.replicaSet.create(input), BAD_REQUEST);
  expect(await fx.client.replicaSet.list({ ...project, service_id: reader })).toEqual([]);
});

test('a too-short password is refused without echoing it', async () => {
  const password = 'Qz7';
  const error = await expectCloudError(
    send(fx.raw, 'service.updatePassword', { ...project, service_id, password }),
    BAD_REQUEST,
  );
  expect(error.message).not.toContain(password);
});

describe('illegal transitions', () => {
  test('stopping a PAUSED service is 400, and it stays PAUSED', async () => {
    const paused = await fx.readyService('paused');
    await fx.client.service.stop({ ...project, service_id: paused });
    fx.settle();
    await expectCloudError(fx.client.service.stop({ ...project, service_id: paused }), BAD_REQUEST);
    expect((await fx.getService(paused)).status).toBe('PAUSED');
  });

  test('starting a READY service is 400, and it stays READY', async () => {
    const ready = await fx.readyService('running');
    await expectCloudError(fx.client.service.start({ ...project, service_id: ready }), BAD_REQUEST);
    expect((await fx.getService(ready)).status).toBe('READY');
  });

  test('a LAST_SNAPSHOT fork of a service without a snapshot is 400 and says why', async () => {
    const fresh = await fx.readyService('no-snapshot');
    const error = await expectCloudError(
      fx.client.service.fork({ ...project, service_id: fresh, fork_strategy: 'LAST_SNAPSHOT' }),
      BAD_REQUEST,
    );
    expect(error.message).toMatch(/no backups or snapshots/);
  });

  test('forking a QUEUED service is 400 and creates nothing', async () => {
    const queued = await fx.client.service.create({ ...project, name: 'queued' });
    const count = (await fx.client.service.list(project)).length;
    await expectCloudError(
      fx.client.service.fork({ ...project, service_id: queued.service_id!, fork_strategy: 'NOW' }),
      BAD_REQUEST,
    );
    expect(await fx.client.service.list(project)).toHaveLength(count);
  });

  test('a PITR target before the service existed is 400', async () => {
    await expectCloudError(
      fx.client.service.fork({
        ...project,
        service_id,
        fork_strategy: 'PITR',
        target_time: '2000-01-01T00:00:00Z',
      }),
      BAD_REQUEST,
    );
  });
});
