// What the client puts on the wire: URL, auth, headers, body, connection reuse; and the HTTPS rule.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCloudClient, type CloudClient } from '../../cloud/client';
import { CloudApiError } from '../../cloud/errors';
import { isLoopbackHost } from '../../cloud/base-url';
import {
  BASE_PATH,
  startScriptedServer,
  type ScriptedServer,
  scriptedClient,
} from '../helpers/cloud-scripted-server';
import { thrownBy } from '../helpers/thrown';

const packageVersion = (
  JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }
).version;

let server: ScriptedServer;
let client: CloudClient;

beforeEach(async () => {
  server = await startScriptedServer();
  client = scriptedClient(server, {
    baseUrl: `${server.baseUrl}/`,
    accessKey: 'access-1',
    secretKey: 's3cr3t:with:colons',
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('requests on the wire', () => {
  it('sends Basic auth, User-Agent and Accept on every request', async () => {
    server.reply(200, []);
    await client.project.list({});
    const [seen] = server.requests;
    const expected = `Basic ${Buffer.from('access-1:s3cr3t:with:colons').toString('base64')}`;
    expect(seen?.headers.authorization).toBe(expected);
    expect(seen?.headers['user-agent']).toBe(`tideline/${packageVersion} (node ${process.versions.node})`);
    expect(seen?.headers.accept).toBe('application/json');
    expect(seen?.headers['content-type']).toBeUndefined();
    expect(seen?.method).toBe('GET');
    expect(seen?.url).toBe(`${BASE_PATH}/projects`);
  });

  it('sends the body fields as JSON and keeps path parameters out of it', async () => {
    server.reply(202, { service_id: 'new', status: 'QUEUED', initial_password: 'pw-from-server' });
    const created = await client.service.create({
      project_id: 'p1',
      name: 'orders',
      addons: ['time-series'],
      cpu_millis: '1000',
      memory_gbs: '4',
    });
    expect(created).toEqual({ service_id: 'new', status: 'QUEUED', initial_password: 'pw-from-server' });
    const [seen] = server.requests;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe(`${BASE_PATH}/projects/p1/services`);
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen?.body ?? '')).toEqual({
      name: 'orders',
      addons: ['time-series'],
      cpu_millis: '1000',
      memory_gbs: '4',
    });
  });

  it('URL-encodes path parameters', async () => {
    server.reply(200, {});
    await client.replicaSet.setEnvironment({
      project_id: 'p/1',
      service_id: 's 1?x',
      replica_set_id: 'r#1',
      environment: 'PROD',
    });
    expect(server.requests[0]?.url).toBe(
      `${BASE_PATH}/projects/p%2F1/services/s%201%3Fx/replicaSets/r%231/setEnvironment`,
    );
  });

  it('puts query fields in the query string and nothing in the body', async () => {
    server.reply(200, { logs: [] });
    await client.service.logs({
      project_id: 'p1',
      service_id: 's1',
      cursor: 'abc/=+',
      node: 2,
      since: '2024-01-01T00:00:00Z',
    });
    const [seen] = server.requests;
    const url = new URL(seen?.url ?? '', 'http://x');
    expect(url.pathname).toBe(`${BASE_PATH}/projects/p1/services/s1/logs`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      cursor: 'abc/=+',
      node: '2',
      since: '2024-01-01T00:00:00Z',
    });
    expect(seen?.body).toBe('');
  });

  it('sends no body for an action without one', async () => {
    server.reply(202, { service_id: 's1', status: 'PAUSING' });
    await client.service.stop({ project_id: 'p1', service_id: 's1' });
    expect(server.requests[0]?.body).toBe('');
    expect(server.requests[0]?.headers['content-type']).toBeUndefined();
  });

  it('reuses one kept-alive connection for several calls', async () => {
    server.reply(200, []);
    for (let i = 0; i < 5; i++) await client.vpc.list({ project_id: 'p1' });
    expect(server.requests).toHaveLength(5);
    expect(server.connections()).toBe(1);
    expect(new Set(server.requests.map((r) => r.connection))).toEqual(new Set([1]));
  });

  it('checks inputs before sending, unless told not to', async () => {
    const error = await client.service
      .resize({ project_id: 'p1', service_id: 's1', cpu_millis: '3000', memory_gbs: '4' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({
      code: 'CLOUD_API_BAD_REQUEST',
      action: 'service.resize',
      status: undefined,
    });
    expect((error as Error).message).toContain('cpu_millis');
    expect(server.requests).toHaveLength(0);

    const lax = scriptedClient(server, { validateRequests: false });
    server.reply(400, { code: 'INVALID_REQUEST', message: 'size not allowed' });
    await expect(
      lax.service.resize({ project_id: 'p1', service_id: 's1', cpu_millis: '3000', memory_gbs: '4' }),
    ).rejects.toMatchObject({ code: 'CLOUD_API_BAD_REQUEST', status: 400 });
    expect(server.requests).toHaveLength(1);
    await lax.close();
  });

  it('refuses calls after close, without touching the network', async () => {
    await client.close();
    await client.close();
    await expect(client.project.list({})).rejects.toMatchObject({ code: 'CLOUD_API_CONFIG' });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an unknown action', async () => {
    const call = client.call as (action: string, input: object) => Promise<unknown>;
    await expect(call.call(client, 'service.explode', {})).rejects.toMatchObject({
      code: 'CLOUD_API_CONFIG',
    });
  });
});

describe('the HTTPS rule', () => {
  const keys = { accessKey: 'a', secretKey: 's' };

  function configError(options: Parameters<typeof createCloudClient>[0]): CloudApiError {
    const error = thrownBy(() => createCloudClient(options));
    if (!(error instanceof CloudApiError)) throw error;
    return error;
  }

  it('accepts https and normalises a trailing slash', async () => {
    const secure = createCloudClient({ baseUrl: 'https://api.example.com/public/api/v1/', ...keys });
    expect(secure.baseUrl).toBe('https://api.example.com/public/api/v1');
    await secure.close();
  });

  it('refuses plain http to a non-loopback host, even with the flag', () => {
    const error = configError({
      baseUrl: 'http://api.example.com/public/api/v1',
      ...keys,
      allowInsecureLoopback: true,
    });
    expect(error.code).toBe('CLOUD_API_CONFIG');
    expect(error.message).toMatch(/must use https/);
  });

  it('refuses plain http to loopback without the flag', () => {
    const error = configError({ baseUrl: `http://127.0.0.1:${server.port}/public/api/v1`, ...keys });
    expect(error.code).toBe('CLOUD_API_CONFIG');
    expect(error.message).toContain('allowInsecureLoopback');
  });

  it('allows plain http to loopback with the flag and really talks to it', async () => {
    server.reply(200, [{ id: 'p1', name: 'one' }]);
    const local = createCloudClient({
      baseUrl: server.baseUrl.replace('127.0.0.1', 'localhost'),
      ...keys,
      allowInsecureLoopback: true,
    });
    await expect(local.project.list({})).resolves.toEqual([{ id: 'p1', name: 'one' }]);
    await local.close();
  });

  it.each([
    'not a url',
    '/public/api/v1',
    'ftp://127.0.0.1/x',
    'https://u:p@api.example.com/v1',
    'https://api.example.com/v1?x=1',
  ])('refuses %s', (baseUrl) => {
    const error = configError({ baseUrl, ...keys });
    expect(error.code).toBe('CLOUD_API_CONFIG');
    expect(error.message).not.toContain('u:p');
  });

  it('refuses empty credentials and bad timeouts', () => {
    const baseUrl = 'https://api.example.com/v1';
    expect(configError({ baseUrl, accessKey: '', secretKey: 's' }).message).toContain('accessKey');
    expect(configError({ baseUrl, accessKey: 'a', secretKey: '' }).message).toContain('secretKey');
    expect(configError({ baseUrl, ...keys, timeoutMs: 0 }).message).toContain('timeoutMs');
    expect(configError({ baseUrl, ...keys, timeoutMs: Number.NaN }).code).toBe('CLOUD_API_CONFIG');
  });

  it('knows which hosts are loopback', () => {
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]', '::1'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['128.0.0.1', 'example.com', 'localhost.example.com', '[::2]', '10.0.0.1']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });
});

// Compile-time checks (run by `tsc --noEmit`): the grouped methods carry the catalogue's types.
// Never called; each @ts-expect-error fails the type check if the typing loosens.
export async function typeChecks(typed: CloudClient): Promise<void> {
  const created = await typed.service.create({
    project_id: 'p',
    name: 'n',
    cpu_millis: '1000',
    memory_gbs: '4',
  });
  const status: string | undefined = created.status;
  const vpcs = await typed.vpc.list({ project_id: 'p' });
  const firstCidr: string | undefined = vpcs[0]?.cidr;
  const nothing: undefined = await typed.vpc.delete({ project_id: 'p', vpc_id: '1' });
  const viaCall = await typed.call('replicaSet.list', { project_id: 'p', service_id: 's' });
  const replicaStatus: string | undefined = viaCall[0]?.status;
  // @ts-expect-error service_id is required
  await typed.service.get({ project_id: 'p' });
  // @ts-expect-error cpu_millis is a string in resize bodies
  await typed.service.resize({ project_id: 'p', service_id: 's', cpu_millis: 1000, memory_gbs: '4' });
  // @ts-expect-error no such method
  await typed.service.explode({ project_id: 'p' });
  // @ts-expect-error no such action
  await typed.call('service.explode', {});
  void [status, firstCidr, nothing, replicaStatus];
}

describe('answers read unchecked', () => {
  const listed = [{ service_id: 'a1', name: 'orders', status: 'READY', field_from_a_newer_api: 1 }];

  it('gives the JSON as it arrived with checkBody: false, and as the schema reads it without', async () => {
    server.reply(200, listed);
    server.reply(200, listed);
    const raw = await client.call('service.list', { project_id: 'p1' }, { checkBody: false });
    const read = await client.call('service.list', { project_id: 'p1' });
    expect(raw).toEqual(listed);
    expect(read).toEqual([{ service_id: 'a1', name: 'orders', status: 'READY' }]);
  });

  it('with elementsHolding, does not parse a list whose text holds none of a value', async () => {
    // Not valid JSON past its first element: reading it at all would fail.
    server.reply(200, '[{"service_id":"a1","name":"orders"},{oops}]');
    const skipped = await client.call(
      'service.list',
      { project_id: 'p1' },
      { checkBody: false, elementsHolding: ['billing'] },
    );
    expect(skipped).toEqual([]);
    // A value the text holds: parsed, so the broken body is refused as before.
    await expect(
      client.call('service.list', { project_id: 'p1' }, { checkBody: false, elementsHolding: ['orders'] }),
    ).rejects.toMatchObject({ code: 'CLOUD_API_INVALID_RESPONSE' });
  });

  it('with elementsHolding, parses a list that escapes a character: its text proves nothing', async () => {
    server.reply(200, '[{"service_id":"a1","name":"b\\u0069lling"}]');
    const read = await client.call(
      'service.list',
      { project_id: 'p1' },
      { checkBody: false, elementsHolding: ['billing'] },
    );
    expect(read).toEqual([{ service_id: 'a1', name: 'billing' }]);
  });

  it('still turns an error status into a CloudApiError', async () => {
    server.reply(500, { code: 'INTERNAL', message: 'boom' });
    await expect(
      client.call('service.list', { project_id: 'p1' }, { checkBody: false }),
    ).rejects.toMatchObject({
      name: 'CloudApiError',
      code: 'CLOUD_API_SERVER_ERROR',
    });
  });
});
