// The control API (/__sim) cannot be driven by a web page or by anyone without the token: the real
// local cloud over real HTTP on 127.0.0.1, port 0.
import { inspect } from 'node:util';
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { rawHttp } from '../helpers/raw-http';

let tc: TestCloud;

beforeAll(async () => {
  tc = await startTestCloud({ seed: 5, controlToken: 'test-control-token-0123456789' });
  expect((await call(tc, 'POST', paths(tc).services, { body: { name: 'keep-me' } })).status).toBe(202);
});
afterAll(() => tc.close());

const serviceCount = async () =>
  ((await call(tc, 'GET', paths(tc).services)).body as unknown as unknown[]).length;

test('without the token, or with a wrong one, every control request is a 401 {code, message}', async () => {
  for (const authorization of [
    null,
    'Bearer wrong-token',
    tc.authorization,
    'test-control-token-0123456789',
  ]) {
    for (const [method, path] of [
      ['GET', '/health'],
      ['GET', '/state'],
      ['POST', '/reset'],
      ['DELETE', '/faults'],
    ] as const) {
      const answer = await call(tc, method, `${tc.controlUrl}${path}`, { authorization });
      expect([method, path, answer.status]).toEqual([method, path, 401]);
      expect(answer.body).toEqual({ code: 'UNAUTHORIZED', message: expect.stringContaining('Bearer') });
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer /);
    }
  }
  expect(await serviceCount()).toBe(1);
  // The right one works, in any letter case of the scheme.
  const health = await call(tc, 'GET', `${tc.controlUrl}/health`, {
    authorization: 'bearer test-control-token-0123456789',
  });
  expect(health.status).toBe(200);
});

test('a cross-site "simple" POST /__sim/reset (text/plain, Origin) is refused and wipes nothing', async () => {
  for (const authorization of [null, tc.controlAuthorization]) {
    const answer = await call(tc, 'POST', `${tc.controlUrl}/reset`, {
      authorization,
      rawBody: '{}',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('web browser') });
  }
  expect(await serviceCount()).toBe(1);
});

test('any browser Origin is refused, even with the token and even a loopback one', async () => {
  const browserHeaders: Record<string, string>[] = [
    { origin: 'http://127.0.0.1:3000' },
    { origin: 'null' },
    { 'sec-fetch-site': 'cross-site' },
  ];
  for (const headers of browserHeaders) {
    const answer = await call(tc, 'GET', `${tc.controlUrl}/state`, { headers });
    expect([headers, answer.status, answer.body.code]).toEqual([headers, 403, 'FORBIDDEN']);
  }
});

test('a Host header with a DNS name (DNS rebinding) is refused; IP literals and localhost work', async () => {
  const port = new URL(tc.controlUrl).port;
  const evil = await call(tc, 'GET', `${tc.controlUrl}/state`, {
    headers: { host: `rebind.evil.example:${port}` },
  });
  expect(evil.status).toBe(403);
  expect(evil.body).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('Host') });
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
    const answer = await call(tc, 'GET', `${tc.controlUrl}/health`, { headers: { host } });
    expect([host, answer.status]).toEqual([host, 200]);
  }
});

test('control bodies must be JSON: text/plain and form data are a 415, and nothing changes', async () => {
  const rule = JSON.stringify({ action: '*', kind: 'error', status: 503 });
  for (const contentType of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
  ]) {
    const answer = await call(tc, 'POST', `${tc.controlUrl}/faults`, {
      rawBody: rule,
      headers: { 'content-type': contentType },
    });
    expect([contentType, answer.status]).toEqual([contentType, 415]);
    expect(answer.body).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('JSON') });
  }
  const noType = await rawHttp(
    tc.controlUrl,
    `POST /__sim/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${tc.controlAuthorization}\r\n` +
      `Content-Length: ${rule.length}\r\nConnection: close\r\n\r\n${rule}`,
  );
  expect(noType.status).toBe(415);
  expect((await call(tc, 'GET', `${tc.controlUrl}/faults`)).body.rules).toEqual([]);
  // A body-less POST needs no content type.
  expect((await call(tc, 'POST', `${tc.controlUrl}/stats/reset`)).status).toBe(204);
});

test('the token is never shown when the handle is inspected', () => {
  expect(tc.cloud.controlToken).toBe('test-control-token-0123456789');
  expect(inspect(tc.cloud, { depth: 5 })).not.toContain('test-control-token');
  expect(JSON.stringify({ ...tc.cloud })).not.toContain('test-control-token');
});

test('control: false (--no-control) leaves every /__sim path a 404 {code, message}; the API still works', async () => {
  const off = await startTestCloud({ control: false });
  try {
    expect(off.cloud.controlToken).toBeNull();
    for (const [method, path] of [
      ['GET', '/health'],
      ['POST', '/reset'],
      ['GET', '/state'],
    ] as const) {
      const answer = await call(off, method, `${off.controlUrl}${path}`, { authorization: 'Bearer x' });
      expect([method, path, answer.status]).toEqual([method, path, 404]);
      expect(answer.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
    }
    expect((await call(off, 'GET', paths(off).services)).status).toBe(200);
  } finally {
    await off.close();
  }
});

test('each start has its own token unless the config sets one', async () => {
  const [a, b] = await Promise.all([startTestCloud(), startTestCloud()]);
  try {
    expect(a.cloud.controlToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.cloud.controlToken).not.toBe(b.cloud.controlToken);
    const cross = await call(a, 'GET', `${a.controlUrl}/health`, { authorization: b.controlAuthorization });
    expect(cross.status).toBe(401);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  const configured = await startTestCloud({ config: { controlToken: 'from-the-config-file-42' } });
  try {
    expect(configured.cloud.controlToken).toBe('from-the-config-file-42');
  } finally {
    await configured.close();
  }
  await expect(startTestCloud({ config: { controlToken: 'short' } })).rejects.toMatchObject({
    code: 'LOCAL_CLOUD_CONFIG_INVALID',
  });
});
