// API conformance: 401 for wrong credentials and 404 for unknown resources, through the typed client.
// The local cloud has two projects; a key never reaches the other project's resources, which
// answer 404 (not 403) so their existence is not revealed.
import {
  expectCloudError,
  startConformanceCloud,
  type ConformanceCloud,
} from '../helpers/api-conformance-fixtures';
import type { CloudClient } from '../../cloud/client';
import type { ProjectCredentials } from '../../local-cloud/server';

let fx: ConformanceCloud;
let alpha: { project_id: string };
let beta: ProjectCredentials;
let betaClient: CloudClient;
let service_id: string;
let vpc_id: string;

beforeAll(async () => {
  fx = await startConformanceCloud({ config: { projects: [{ name: 'alpha' }, { name: 'beta' }] } });
  alpha = { project_id: fx.projectId };
  beta = fx.tc.cloud.projects[1]!;
  betaClient = fx.clientFor({}, beta);
  service_id = await fx.readyService('alpha-db');
  vpc_id = (await fx.readyVpc('alpha-net')).id;
});
afterAll(() => fx.close());

const UNAUTHORIZED = {
  code: 'CLOUD_API_UNAUTHORIZED',
  status: 401,
  apiCode: 'UNAUTHORIZED',
  retryable: false,
} as const;
const NOT_FOUND = {
  code: 'CLOUD_API_NOT_FOUND',
  status: 404,
  apiCode: 'NOT_FOUND',
  retryable: false,
} as const;

describe('401 Unauthorized', () => {
  test('a wrong secret key: 401, and the secret is in no message', async () => {
    const wrongSecret = 'not-the-secret-9f3a';
    const client = fx.clientFor({ secretKey: wrongSecret });
    const error = await expectCloudError(client.project.list({}), UNAUTHORIZED);
    expect(error.message).not.toContain(wrongSecret);
    expect(JSON.stringify(error)).not.toContain(wrongSecret);
    expect(await fx.answered('project.list', 401)).toBeGreaterThanOrEqual(1);
  });

  test('a wrong secret key cannot create anything', async () => {
    const client = fx.clientFor({ secretKey: 'still-wrong-secret' });
    const before = await fx.client.service.list(alpha);
    await expectCloudError(client.service.create({ ...alpha, name: 'intruder' }), UNAUTHORIZED);
    expect(await fx.client.service.list(alpha)).toEqual(before);
  });

  test('an unknown access key: 401', async () => {
    const client = fx.clientFor({ accessKey: 'no-such-access-key' });
    await expectCloudError(client.service.get({ ...alpha, service_id }), UNAUTHORIZED);
  });

  test("one project's access key with the other project's secret: 401", async () => {
    const client = fx.clientFor({ accessKey: beta.access_key, secretKey: fx.tc.project.secret_key });
    await expectCloudError(client.vpc.list(alpha), UNAUTHORIZED);
  });
});

describe('404 Not Found for unknown ids', () => {
  test('unknown service: get, resize, delete', async () => {
    const unknown = { ...alpha, service_id: 'zzzzzzzzzz' };
    await expectCloudError(fx.client.service.get(unknown), NOT_FOUND);
    await expectCloudError(
      fx.client.service.resize({ ...unknown, cpu_millis: '1000', memory_gbs: '4' }),
      NOT_FOUND,
    );
    await expectCloudError(fx.client.service.delete(unknown), NOT_FOUND);
    await expectCloudError(fx.client.service.logs(unknown), NOT_FOUND);
  });

  test('unknown VPC: get, rename, delete, list peerings', async () => {
    const unknown = { ...alpha, vpc_id: '999999999' };
    await expectCloudError(fx.client.vpc.get(unknown), NOT_FOUND);
    await expectCloudError(fx.client.vpc.rename({ ...unknown, name: 'x' }), NOT_FOUND);
    await expectCloudError(fx.client.vpc.delete(unknown), NOT_FOUND);
    await expectCloudError(fx.client.peering.list(unknown), NOT_FOUND);
  });

  test('attaching to an unknown VPC is 404 and leaves the service READY', async () => {
    await expectCloudError(
      fx.client.service.attachToVpc({ ...alpha, service_id, vpc_id: '888888888' }),
      NOT_FOUND,
    );
    expect((await fx.getService(service_id)).status).toBe('READY');
  });

  test('unknown peering: get, delete', async () => {
    const unknown = { ...alpha, vpc_id, peering_id: '777777777' };
    await expectCloudError(fx.client.peering.get(unknown), NOT_FOUND);
    await expectCloudError(fx.client.peering.delete(unknown), NOT_FOUND);
  });

  test('unknown replica set: delete, resize, pooler, environment; unknown service: list', async () => {
    const unknown = { ...alpha, service_id, replica_set_id: 'qqqqqqqqqq' };
    await expectCloudError(fx.client.replicaSet.delete(unknown), NOT_FOUND);
    await expectCloudError(
      fx.client.replicaSet.resize({ ...unknown, cpu_millis: '1000', memory_gbs: '4' }),
      NOT_FOUND,
    );
    await expectCloudError(fx.client.replicaSet.enablePooler(unknown), NOT_FOUND);
    await expectCloudError(
      fx.client.replicaSet.setEnvironment({ ...unknown, environment: 'PROD' }),
      NOT_FOUND,
    );
    await expectCloudError(fx.client.replicaSet.list({ ...alpha, service_id: 'zzzzzzzzzz' }), NOT_FOUND);
  });
});

describe("404 for another project's resources", () => {
  test('each key sees only its own project', async () => {
    expect(await betaClient.project.list({})).toEqual([{ id: beta.id, name: 'beta' }]);
    expect(await fx.client.project.list({})).toEqual([{ id: fx.projectId, name: 'alpha' }]);
  });

  test("through the other project's path: get, list, delete answer 404", async () => {
    await expectCloudError(betaClient.service.get({ ...alpha, service_id }), NOT_FOUND);
    await expectCloudError(betaClient.service.list(alpha), NOT_FOUND);
    await expectCloudError(betaClient.vpc.get({ ...alpha, vpc_id }), NOT_FOUND);
    await expectCloudError(betaClient.service.delete({ ...alpha, service_id }), NOT_FOUND);
    expect((await fx.getService(service_id)).status).toBe('READY');
  });

  test("through its own path: the other project's ids are unknown", async () => {
    const own = { project_id: beta.id };
    await expectCloudError(betaClient.service.get({ ...own, service_id }), NOT_FOUND);
    await expectCloudError(betaClient.service.stop({ ...own, service_id }), NOT_FOUND);
    await expectCloudError(betaClient.vpc.delete({ ...own, vpc_id }), NOT_FOUND);
    expect(await betaClient.service.list(own)).toEqual([]);
    expect(await betaClient.vpc.list(own)).toEqual([]);
    expect((await fx.getService(service_id)).status).toBe('READY');
    expect(await fx.client.vpc.get({ ...alpha, vpc_id })).toMatchObject({ id: vpc_id });
  });

  test("attaching a service to another project's VPC is 404", async () => {
    const own = { project_id: beta.id };
    const theirs = await betaClient.service.create({ ...own, name: 'beta-db' });
    fx.settle();
    await expectCloudError(
      betaClient.service.attachToVpc({ ...own, service_id: theirs.service_id!, vpc_id }),
      NOT_FOUND,
    );
  });
});
