// How the client turns answers and transport failures into CloudApiError codes.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createCloudClient, type CloudClient } from '../../cloud/client';
import { toActivityFailure } from '../../activities/failures';
import { CloudApiError, type CloudApiErrorCode } from '../../cloud/errors';
import { startScriptedServer, type ScriptedServer, scriptedClient } from '../helpers/cloud-scripted-server';
import { rejectionOf } from '../helpers/rejection';

const SERVICE = { project_id: 'p1', service_id: 's1' };

let server: ScriptedServer;
let client: CloudClient;

beforeEach(async () => {
  server = await startScriptedServer();
  client = scriptedClient(server, { accessKey: 'ak', secretKey: 'sk-not-printed', timeoutMs: 2_000 });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const failure = (pending: Promise<unknown>) => rejectionOf(pending, CloudApiError);

describe('error answers', () => {
  const table: [number, CloudApiErrorCode, string, boolean][] = [
    [400, 'CLOUD_API_BAD_REQUEST', 'INVALID_REQUEST', false],
    [401, 'CLOUD_API_UNAUTHORIZED', 'UNAUTHORIZED', false],
    [403, 'CLOUD_API_FORBIDDEN', 'FORBIDDEN', false],
    [404, 'CLOUD_API_NOT_FOUND', 'NOT_FOUND', false],
    [408, 'CLOUD_API_TIMEOUT', 'REQUEST_TIMEOUT', true],
    [409, 'CLOUD_API_CONFLICT', 'CONFLICT', true],
    [422, 'CLOUD_API_BAD_REQUEST', 'INVALID_REQUEST', false],
    [429, 'CLOUD_API_RATE_LIMITED', 'RATE_LIMITED', true],
    [500, 'CLOUD_API_SERVER_ERROR', 'INTERNAL', true],
    [502, 'CLOUD_API_SERVER_ERROR', 'BAD_GATEWAY', true],
    [503, 'CLOUD_API_SERVER_ERROR', 'UNAVAILABLE', true],
  ];

  it.each(table)('HTTP %i → %s', async (status, code, apiCode, retryable) => {
    server.reply(status, { code: apiCode, message: `the server says ${status}` });
    const error = await failure(client.service.get(SERVICE));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.status).toBe(status);
    expect(error.apiCode).toBe(apiCode);
    expect(error.action).toBe('service.get');
    expect(error.message).toContain(`the server says ${status}`);
    expect(error.message).toContain('service.get');
    expect(error.message).toContain(String(status));
  });

  it('maps a status without an error body and says so', async () => {
    server.reply(502, '<html>bad gateway</html>', { 'content-type': 'text/html' });
    const error = await failure(client.service.get(SERVICE));
    expect(error.code).toBe('CLOUD_API_SERVER_ERROR');
    expect(error.apiCode).toBeUndefined();
    expect(error.message).toMatch(/service\.get failed: HTTP 502: the answer carried no error message/);
    expect(error.message).not.toContain('html');
  });

  it("shows the body's details, the actionable part, after the message, with secrets masked", async () => {
    server.reply(401, {
      code: 'UNAUTHORIZED',
      message: 'invalid credentials',
      details: 'bearer auth is not enabled on this server (key sk-not-printed)',
    });
    const error = await failure(client.service.get(SERVICE));
    expect(error.message).toBe(
      'service.get failed: HTTP 401 UNAUTHORIZED: invalid credentials — ' +
        'bearer auth is not enabled on this server (key [REDACTED])',
    );
    expect(error.apiDetails).toBe('bearer auth is not enabled on this server (key [REDACTED])');
    expect(error.toJSON()).toMatchObject({ apiDetails: error.apiDetails });
  });

  it('a 408 with details becomes a retryable timeout for Temporal, the details kept', async () => {
    server.reply(408, {
      code: 'REQUEST_TIMEOUT',
      message: 'request body too slow',
      details: 'send it again',
    });
    const activityFailure = toActivityFailure(await failure(client.service.stop(SERVICE)));
    expect(activityFailure.type).toBe('CLOUD_API_TIMEOUT');
    expect(activityFailure.nonRetryable).toBe(false);
    expect(activityFailure.message).toBe(
      'service.stop failed: HTTP 408 REQUEST_TIMEOUT: request body too slow — send it again',
    );
    expect(activityFailure.details).toEqual([
      { action: 'service.stop', status: 408, apiCode: 'REQUEST_TIMEOUT', apiDetails: 'send it again' },
    ]);
  });

  it('reads an error without details, or with blank details, as before', async () => {
    for (const details of [undefined, '  ', 7]) {
      server.reply(409, { code: 'CONFLICT', message: 'busy', ...(details !== undefined ? { details } : {}) });
      const error = await failure(client.service.get(SERVICE));
      expect(error.message).toBe('service.get failed: HTTP 409 CONFLICT: busy');
      expect(error.apiDetails).toBeUndefined();
    }
  });

  it('keeps the connection usable after an error answer', async () => {
    server.reply(409, { code: 'CONFLICT', message: 'busy' });
    await failure(client.service.get(SERVICE));
    server.reply(200, { service_id: 's1', status: 'READY' });
    await expect(client.service.get(SERVICE)).resolves.toEqual({ service_id: 's1', status: 'READY' });
    expect(server.connections()).toBe(1);
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds', async () => {
    server.reply(429, { code: 'RATE_LIMITED', message: 'slow down' }, { 'retry-after': '7' });
    const error = await failure(client.project.list({}));
    expect(error.retryAfterMs).toBe(7_000);
    expect(error.message).toContain('retry after 7000 ms');
  });

  it('reads an HTTP date', async () => {
    const sent = Date.now();
    const at = new Date(sent + 60_000).toUTCString();
    server.reply(429, { code: 'RATE_LIMITED', message: 'slow down' }, { 'retry-after': at });
    const error = await failure(client.project.list({}));
    // HTTP dates have whole seconds, so up to one second is lost, plus the time the call took.
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(60_000 - 1_000 - (Date.now() - sent));
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('ignores garbage', async () => {
    server.reply(429, { code: 'RATE_LIMITED', message: 'slow down' }, { 'retry-after': 'soon-ish' });
    const error = await failure(client.project.list({}));
    expect(error.code).toBe('CLOUD_API_RATE_LIMITED');
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('is undefined when absent', async () => {
    server.reply(429, { code: 'RATE_LIMITED', message: 'slow down' });
    const error = await failure(client.project.list({}));
    expect(error.code).toBe('CLOUD_API_RATE_LIMITED');
    expect(error.retryAfterMs).toBeUndefined();
  });
});

describe('invalid success answers', () => {
  it('rejects a body that is not JSON without quoting it', async () => {
    server.reply(200, '{"service_id": "s1", "initial_password": "hunter2-secret"');
    const error = await failure(client.service.get(SERVICE));
    expect(error.code).toBe('CLOUD_API_INVALID_RESPONSE');
    expect(error.message).toMatch(/service\.get: .*not valid JSON/);
    expect(error.message).not.toContain('hunter2');
    expect(error.cause).toBeUndefined();
  });

  it('rejects an empty body where JSON is expected', async () => {
    server.reply(200);
    const error = await failure(client.service.get(SERVICE));
    expect(error.code).toBe('CLOUD_API_INVALID_RESPONSE');
    expect(error.message).toContain('empty body');
  });

  it('names the action and field path of a schema-breaking body, not its values', async () => {
    server.reply(200, {
      service_id: 's1',
      initial_password: 'hunter2-secret',
      paused: 'no',
      resources: [{ id: 'r', spec: { cpu_millis: 'lots' } }],
    });
    const error = await failure(client.service.get(SERVICE));
    expect(error.code).toBe('CLOUD_API_INVALID_RESPONSE');
    expect(error.action).toBe('service.get');
    expect(error.message).toContain('service.get');
    expect(error.message).toContain('paused:');
    expect(error.message).toContain('resources[0].spec.cpu_millis: ');
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('lots');
  });

  it('rejects an array where an object is expected', async () => {
    server.reply(200, [{ id: '1' }]);
    const error = await failure(client.vpc.get({ project_id: 'p1', vpc_id: '1' }));
    expect(error.code).toBe('CLOUD_API_INVALID_RESPONSE');
    expect(error.message).toContain('(body)');
  });

  it('rejects a success status other than the operation’s', async () => {
    server.reply(200, { service_id: 's1', status: 'QUEUED' });
    const error = await failure(client.service.create({ project_id: 'p1', name: 'orders' }));
    expect(error.code).toBe('CLOUD_API_INVALID_RESPONSE');
    expect(error.status).toBe(200);
    expect(error.message).toContain('expected 202');
  });

  it('treats a redirect as an invalid answer', async () => {
    server.reply(302, '', { location: 'https://elsewhere.example/' });
    const error = await failure(client.project.list({}));
    expect(error.code).toBe('CLOUD_API_INVALID_RESPONSE');
  });

  it('returns undefined for operations without a response body, whatever was sent', async () => {
    server.reply(204);
    await expect(client.vpc.delete({ project_id: 'p1', vpc_id: '9' })).resolves.toBeUndefined();
    server.reply(202, { ignored: true, padding: 'x'.repeat(100_000) });
    await expect(client.service.delete(SERVICE)).resolves.toBeUndefined();
    // The body was drained, so the connection was reused.
    server.reply(200, []);
    await expect(client.project.list({})).resolves.toEqual([]);
    expect(server.connections()).toBe(1);
  });
});

// The server below never answers, so only the client's deadline ends these requests: a rejection
// naming the configured deadline, not earlier than it, is the proof (no wall-clock ceiling, which a
// loaded machine can break; a deadline that never fires fails on Jest's timeout).
describe('transport failures', () => {
  it('times out a request whose headers never come, at the deadline', async () => {
    server.handle(() => undefined);
    const started = Date.now();
    const error = await failure(client.service.get(SERVICE, { timeoutMs: 300 }));
    const elapsed = Date.now() - started;
    expect(error.code).toBe('CLOUD_API_TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(290);
  });

  it('times out a body that stalls halfway, at the deadline', async () => {
    server.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"service_id": ');
    });
    const started = Date.now();
    const error = await failure(client.service.get(SERVICE, { timeoutMs: 300 }));
    expect(error.code).toBe('CLOUD_API_TIMEOUT');
    expect(error.message).toContain('300 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('uses the client-wide deadline by default', async () => {
    await client.close();
    client = scriptedClient(server, { accessKey: 'ak', secretKey: 'sk', timeoutMs: 250 });
    server.handle(() => undefined);
    const error = await failure(client.project.list({}));
    expect(error.code).toBe('CLOUD_API_TIMEOUT');
    expect(error.message).toContain('250 ms');
  });

  it('reports a refused connection as a network error', async () => {
    const port = await freePort();
    const refused = createCloudClient({
      baseUrl: `http://127.0.0.1:${port}/public/api/v1`,
      accessKey: 'ak',
      secretKey: 'sk',
      allowInsecureLoopback: true,
    });
    try {
      const error = await failure(refused.project.list({}));
      expect(error.code).toBe('CLOUD_API_NETWORK');
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('ECONNREFUSED');
    } finally {
      await refused.close();
    }
  });

  it('reports a connection closed by the server as a network error', async () => {
    server.handle((_request, response) => response.socket?.destroy());
    const error = await failure(client.service.get(SERVICE));
    expect(error.code).toBe('CLOUD_API_NETWORK');
    expect(error.action).toBe('service.get');
  });

  it('rejects with the caller’s reason when the caller aborts, and does not wait for the deadline', async () => {
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    // Aborted once the request is out; the deadline would reject with CLOUD_API_TIMEOUT instead.
    server.handle(() => controller.abort(reason));
    await expect(client.service.get(SERVICE, { signal: controller.signal, timeoutMs: 60_000 })).rejects.toBe(
      reason,
    );
  });

  it('does not send anything when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(client.project.list({}, { signal: controller.signal })).rejects.toThrow('too late');
    expect(server.requests).toHaveLength(0);
  });

  it('never retries by itself', async () => {
    server.reply(503, { code: 'INTERNAL', message: 'down' });
    await failure(client.project.list({}));
    expect(server.requests).toHaveLength(1);
  });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
