// HTTP edges of the local cloud, over real sockets on 127.0.0.1 port 0: slow clients are cut off,
// a known path with another method is a 405 with Allow, every error the framework or Node's
// parser raises has the `{code, message}` body, and unusable names are a 400.
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { rawHttp } from '../helpers/raw-http';

let tc: TestCloud;
let p: ReturnType<typeof paths>;

// Short limits so the slow-client cases finish quickly; the defaults are 10 s / 30 s.
const LIMITS = { headersTimeoutMs: 1000, requestTimeoutMs: 2000 };

beforeAll(async () => {
  tc = await startTestCloud({ seed: 9, http: LIMITS });
  p = paths(tc);
});
afterAll(() => tc.close());

const origin = () => new URL(tc.url).origin;
const auth = () => `Authorization: ${tc.authorization}\r\n`;

function expectErrorBody(body: unknown, code: string): void {
  expect(body).toEqual({ code, message: expect.any(String) });
  expect((body as { message: string }).message.length).toBeLessThan(300);
}

/**
 * A 408 from the server's own limits (the client never stops sending, so nothing else ends the
 * request), and the limits in force are the short ones set here, not the defaults.
 */
function expectCutOffByLimits(answer: { status: number; body: unknown }): void {
  expect(answer.status).toBe(408);
  expectErrorBody(answer.body, 'REQUEST_TIMEOUT');
  expect((answer.body as { message: string }).message).toBe(
    `the request did not arrive in time (headers within ${LIMITS.headersTimeoutMs} ms, ` +
      `the whole request within ${LIMITS.requestTimeoutMs} ms)`,
  );
}

describe('slow clients', () => {
  test('bodies trickling in a byte at a time are cut off with a 408, all of them', async () => {
    const head =
      `POST /public/api/v1${p.services} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        rawHttp(origin(), head, { trickle: { chunk: ' ', intervalMs: 200 }, timeoutMs: 15_000 }),
      ),
    );
    for (const answer of answers) expectCutOffByLimits(answer);
  }, 30_000);

  test('headers trickling in, or nothing sent at all, are cut off too', async () => {
    const slowHeaders = rawHttp(origin(), 'GET /public/api/v1/projects HTTP/1.1\r\n', {
      trickle: { chunk: 'X-A: b\r\n', intervalMs: 200 },
      timeoutMs: 15_000,
    });
    const silent = rawHttp(origin(), '', { timeoutMs: 15_000 });
    for (const answer of await Promise.all([slowHeaders, silent])) expectCutOffByLimits(answer);
  }, 30_000);

  test('a request held by a latency fault longer than the request timeout is still answered', async () => {
    tc.cloud.addFaults({
      action: 'service.list',
      kind: 'latency',
      ms: LIMITS.requestTimeoutMs + 1500,
      times: 1,
    });
    const answer = await call(tc, 'GET', p.services);
    expect(answer.status).toBe(200);
  }, 15_000);
});

describe('405 with Allow', () => {
  test.each([
    ['PUT', (): string => p.services, ['GET', 'HEAD', 'POST']],
    ['PATCH', (): string => p.service('abcdefghij'), ['DELETE', 'GET', 'HEAD']],
    ['DELETE', (): string => `${p.vpcs}`, ['GET', 'HEAD', 'POST']],
    ['OPTIONS', (): string => '/projects', ['GET', 'HEAD']],
  ] as const)('%s on a known API path', async (method, path, allowed) => {
    const answer = await call(tc, method, path());
    expect(answer.status).toBe(405);
    expectErrorBody(answer.body, 'METHOD_NOT_ALLOWED');
    expect(String(answer.headers.allow).split(', ')).toEqual(expect.arrayContaining([...allowed]));
  });

  test('on the control API, before any token check', async () => {
    const answer = await call(tc, 'GET', `${tc.controlUrl}/reset`, { authorization: null });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
  });

  test('unknown paths stay a 404', async () => {
    const answer = await call(tc, 'PUT', '/no/such/path');
    expect(answer.status).toBe(404);
    expectErrorBody(answer.body, 'NOT_FOUND');
  });
});

describe('every framework error is {code, message}', () => {
  const get = (path: string, extra = ''): string =>
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}${extra}Connection: close\r\n\r\n`;
  const post = (path: string, contentType: string, body: Buffer | string): Buffer =>
    Buffer.concat([
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}Content-Type: ${contentType}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
        'latin1',
      ),
      typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    ]);
  const api = (path: string) => `/public/api/v1${path}`;

  test.each([
    ['431: a huge id', () => get(api(p.service('a'.repeat(20_000)))), 431, 'HEADERS_TOO_LARGE'],
    [
      '431: a huge header',
      () => get(api(p.services), `X-Big: ${'b'.repeat(20_000)}\r\n`),
      431,
      'HEADERS_TOO_LARGE',
    ],
    ['414: an id over 100 characters', () => get(api(p.service('a'.repeat(500)))), 414, 'URI_TOO_LONG'],
    [
      '400: invalid UTF-8 in the path (percent-encoded)',
      () => get(api(p.service('%ff%fe'))),
      400,
      'INVALID_REQUEST',
    ],
    [
      '400: invalid UTF-8 in the path (raw bytes)',
      () => get(api(p.service('\xff\xfe'))),
      400,
      'INVALID_REQUEST',
    ],
    ['400: an unknown method', () => get(api(p.services)).replace(/^GET/, 'FROB'), 400, 'INVALID_REQUEST'],
    [
      '413: a body over 1 MiB',
      () => post(api(p.services), 'application/json', `{"name":"${'x'.repeat(1_100_000)}"}`),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      '415: an unknown content type',
      () => post(api(p.services), 'application/xml', '<a/>'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      '400: malformed JSON',
      () => post(api(p.services), 'application/json', '{"name":'),
      400,
      'INVALID_REQUEST',
    ],
    [
      '400: a body with invalid UTF-8',
      () =>
        post(
          api(p.services),
          'application/json',
          Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
        ),
      400,
      'INVALID_REQUEST',
    ],
  ] as const)('%s', async (_label, request, status, code) => {
    const answer = await rawHttp(origin(), request(), { timeoutMs: 15_000 });
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expectErrorBody(answer.body, code);
  });

  test('the invalid-UTF-8 body says so', async () => {
    const bytes = Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]);
    const answer = await rawHttp(origin(), post(api(p.services), 'application/json', bytes));
    expect(answer.body).toEqual({ code: 'INVALID_REQUEST', message: 'the request body is not valid UTF-8' });
  });
});

describe('names', () => {
  const serviceCount = async () => ((await call(tc, 'GET', p.services)).body as unknown as unknown[]).length;

  test.each([
    ['NUL', 'a\u0000b'],
    ['CR LF', 'svc\r\nX-Injected: 1'],
    ['LF', 'two\nlines'],
    ['tab', 'a\tb'],
    ['escape sequence', '\u001b[31mred'],
    ['DEL', 'a\u007f'],
    ['C1 control', 'a\u0085b'],
    ['lone surrogate', 'a\ud800b'],
  ])('a service name with %s is a 400 naming the field', async (_label, name) => {
    const before = await serviceCount();
    const answer = await call(tc, 'POST', p.services, { body: { name } });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^name: must /) });
    expect(await serviceCount()).toBe(before);
  });

  test('VPC names are checked too, on create and on rename', async () => {
    const vpc = await call(tc, 'POST', p.vpcs, {
      body: { name: 'bad\u0000', cidr: '10.0.0.0/16', region_code: 'us-east-1' },
    });
    expect(vpc.status).toBe(400);
    const good = await call<{ id: string }>(tc, 'POST', p.vpcs, {
      body: { name: 'good', cidr: '10.0.0.0/16', region_code: 'us-east-1' },
    });
    expect(good.status).toBe(201);
    const rename = await call(tc, 'POST', `${p.vpc(good.body.id)}/rename`, { body: { name: 'x\r\ny' } });
    expect(rename.status).toBe(400);
    expect(rename.body.message).toMatch(/^name: /);
  });

  test('ordinary Unicode names are fine', async () => {
    const answer = await call(tc, 'POST', p.services, { body: { name: 'café-☕-日本' } });
    expect(answer.status).toBe(202);
  });
});
