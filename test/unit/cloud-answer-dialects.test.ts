// The client reads answers in spec.md's dialect and in the API's current one: null as absent,
// renamed fields under both names, open enums, unknown fields dropped, alternative success statuses.
import { AuthInfo, Service, ServiceLogsResponse } from '../../cloud/models';
import { onUnknownValue, type UnknownValueListener } from '../../cloud/unknown-values';
import { startScriptedServer, type ScriptedServer, scriptedClient } from '../helpers/cloud-scripted-server';
import type { CloudClient } from '../../cloud/client';

const ENDPOINT = { host: 'h.vpc.example', port: 5432, vpc_id: '7' };

describe('a service answer', () => {
  it('carries the VPC endpoint under both names when only the current one arrived', () => {
    const service = Service.parse({ service_id: 's1', vpc_endpoint: ENDPOINT });
    expect(service.vpc_endpoint).toEqual(ENDPOINT);
    expect(service.vpcEndpoint).toEqual(ENDPOINT);
  });

  it('carries it under both names when only spec.md’s one arrived', () => {
    const service = Service.parse({ service_id: 's1', vpcEndpoint: ENDPOINT });
    expect(service.vpc_endpoint).toEqual(ENDPOINT);
  });

  it('prefers the current name when both arrived and differ', () => {
    const service = Service.parse({ vpc_endpoint: ENDPOINT, vpcEndpoint: { ...ENDPOINT, vpc_id: '8' } });
    expect(service.vpcEndpoint?.vpc_id).toBe('7');
  });

  it('reads null fields, null lists and null inside metrics as absent', () => {
    const service = Service.parse({
      service_id: 's1',
      metrics: null,
      resources: null,
      read_replica_sets: null,
      vpc_endpoint: null,
      vpcEndpoint: null,
      connection_pooler: { endpoint: null },
      forked_from: null,
    });
    expect(service).toEqual({ service_id: 's1', connection_pooler: {} });
    expect(Service.parse({ metrics: { memory_mb: null, milli_cpu: 250, storage_mb: null } }).metrics).toEqual(
      {
        milli_cpu: 250,
      },
    );
  });

  it('keeps null sizes of a shared service, which mean "shared"', () => {
    const service = Service.parse({ resources: [{ id: 'r', spec: { cpu_millis: null, memory_gbs: null } }] });
    expect(service.resources?.[0]?.spec).toEqual({ cpu_millis: null, memory_gbs: null });
  });

  it('drops unknown fields at every level', () => {
    const service = Service.parse({
      service_id: 's1',
      brand_new: 1,
      endpoint: { host: 'h', port: 1, tls: true },
    });
    expect(service).toEqual({ service_id: 's1', endpoint: { host: 'h', port: 1 } });
  });

  it('still rejects a field of the wrong type', () => {
    expect(Service.safeParse({ paused: 'no' }).success).toBe(false);
    expect(Service.safeParse({ vpc_endpoint: { port: 'x' } }).success).toBe(false);
  });

  it('reads TIMESCALEDB and spec.md’s NEUTRALDB as known service types', () => {
    expect(Service.parse({ service_type: 'TIMESCALEDB' }).service_type).toBe('TIMESCALEDB');
    expect(Service.parse({ service_type: 'NEUTRALDB' }).service_type).toBe('NEUTRALDB');
  });
});

describe('open enums', () => {
  let heard: [string, string][];
  let previous: UnknownValueListener;
  beforeEach(() => {
    heard = [];
    previous = onUnknownValue((what, value) => heard.push([what, value]));
  });
  afterEach(() => onUnknownValue(previous));

  it('pass an unknown value through and report it once per value', () => {
    expect(Service.parse({ status: 'MIGRATING_TEST_1' }).status).toBe('MIGRATING_TEST_1');
    Service.parse({ status: 'MIGRATING_TEST_1', service_type: 'GRAPH_TEST_1' });
    Service.parse({ status: 'MIGRATING_TEST_2' });
    expect(heard).toEqual([
      ['service status', 'MIGRATING_TEST_1'],
      ['service type', 'GRAPH_TEST_1'],
      ['service status', 'MIGRATING_TEST_2'],
    ]);
  });

  it('report nothing for known values', () => {
    Service.parse({ status: 'READY', service_type: 'POSTGRES' });
    expect(heard).toEqual([]);
  });

  it('still reject a value that is not a string', () => {
    expect(Service.safeParse({ status: 7 }).success).toBe(false);
  });
});

describe('other renamed fields', () => {
  it('a logs page carries its cursor under both names', () => {
    expect(ServiceLogsResponse.parse({ last_cursor: 'c1', logs: null })).toEqual({
      last_cursor: 'c1',
      lastCursor: 'c1',
    });
    expect(ServiceLogsResponse.parse({ lastCursor: 'c2', logs: [] })).toEqual({
      logs: [],
      last_cursor: 'c2',
      lastCursor: 'c2',
    });
  });

  it('auth.info carries the key’s details under both names', () => {
    const key = {
      public_key: 'pk',
      name: 'ci',
      created: '2025-01-01T00:00:00Z',
      project: { id: 'p1', name: 'main', plan_type: 'SCALE' },
      issuing_user: { id: 'u', name: 'U', email: 'u@example.test' },
    };
    const info = AuthInfo.parse({ type: 'apiKey', api_key: key, oauth: null });
    expect(info.apiKey).toEqual(key);
    expect(info.api_key).toEqual(key);
    expect(info).not.toHaveProperty('oauth');
  });
});

describe('success statuses', () => {
  let server: ScriptedServer;
  let client: CloudClient;
  beforeEach(async () => {
    server = await startScriptedServer();
    client = scriptedClient(server);
  });
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it('updatePassword takes 200 as well as 204, whatever body comes with it', async () => {
    const input = { project_id: 'p1', service_id: 's1', password: 'correct-horse-battery' };
    server.reply(204);
    await expect(client.service.updatePassword(input)).resolves.toBeUndefined();
    server.reply(200, { message: 'password updated' });
    await expect(client.service.updatePassword(input)).resolves.toBeUndefined();
  });

  it('an operation without an alternative still refuses another 2xx', async () => {
    server.reply(200, { service_id: 's1' });
    await expect(client.service.create({ project_id: 'p1', name: 'orders' })).rejects.toMatchObject({
      code: 'CLOUD_API_INVALID_RESPONSE',
    });
  });
});
