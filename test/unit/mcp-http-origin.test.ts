// `tideline mcp --http` (mcp/server.ts, serveHttp; mcp/http-origin.ts) against DNS rebinding, with
// the raw requests a web page's browser sends: a foreign Origin, or a foreign Host (the page's own
// name resolved to 127.0.0.1), is refused with 403 and a JSON-RPC error before any session exists,
// token or not; the server's own Host without an Origin (a non-browser client), its own loopback
// origin, and the host and origin the operator allowed are answered. Deleting a session cancels
// the rehearsal its call is still running.
import { request } from 'node:http';
import { McpToolError } from '../../mcp/errors';
import { allowedHostProblem, allowedOriginProblem } from '../../mcp/http-origin';
import { serveHttp, type McpHttpServer } from '../../mcp/server';
import { standInSettings } from '../helpers/mcp-settings';
import { rawHttp } from '../helpers/raw-http';

const TOKEN = 'unit-test-token-0123456789abcdef';
const ALLOWED_ORIGIN = 'http://localhost:6274';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'Page', version: '1' } },
};

let server: McpHttpServer;
let port: number;
/** Resolves with the abort reason of the stand-in rehearsal once its signal is aborted. */
let rehearsalStarted: () => void = () => undefined;
let rehearsalCancelled: (reason: unknown) => void = () => undefined;

beforeAll(async () => {
  server = await serveHttp(
    standInSettings('read-only', {
      rehearse: ({ signal }) => {
        rehearsalStarted();
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            rehearsalCancelled(signal.reason);
            reject(new McpToolError('MCP_REHEARSAL_CANCELLED', 'cancelled'));
          }),
        );
      },
    }),
    { port: 0, token: TOKEN, allowHosts: ['mcp.internal'], allowOrigins: [ALLOWED_ORIGIN] },
  );
  port = Number(new URL(server.url).port);
});

afterAll(() => server?.close());

/** A POST of `body` to the endpoint, as raw bytes with exactly the headers given. */
function post(headers: Record<string, string>, body: object = INITIALIZE) {
  const text = JSON.stringify(body);
  const lines = Object.entries({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
    ...headers,
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  return rawHttp(server.url, `POST /mcp HTTP/1.0\r\n${lines.join('')}\r\n${text}`);
}

test('a page’s requests are refused with 403 before any session: foreign Origin or foreign Host', async () => {
  const bearer = { authorization: `Bearer ${TOKEN}` };
  const attacks = [
    // A page of another site calling 127.0.0.1 directly: its Origin gives it away.
    { host: `127.0.0.1:${port}`, origin: 'http://evil.example', ...bearer },
    // DNS rebinding: the page's own name now resolves to 127.0.0.1.
    { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, ...bearer },
    // A foreign Host without an Origin, and without the token: still 403, not 401.
    { host: `evil.example:${port}` },
    { host: `127.0.0.1:${port}`, origin: 'null', ...bearer },
  ];
  for (const headers of attacks) {
    const answer = await post(headers);
    expect({ headers, status: answer.status }).toEqual({ headers, status: 403 });
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/origin|Host header/) },
    });
  }
});

/** A POST by a well-behaved client (node:http: the Host given is sent); the answer's text. */
function clientPost(
  headers: Record<string, string>,
  body: object,
): Promise<{ status: number; session: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      server.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (answer) => {
        let text = '';
        answer.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        answer.on('end', () => {
          const session = answer.headers['mcp-session-id'];
          resolve({
            status: answer.statusCode ?? 0,
            session: typeof session === 'string' ? session : undefined,
            text,
          });
        });
      },
    );
    sent.on('error', reject);
    sent.end(JSON.stringify(body));
  });
}

test('its own Host without an Origin, its own origin and the allowed host and origin are answered', async () => {
  for (const headers of [
    { host: `127.0.0.1:${port}` },
    { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    { host: `mcp.internal:${port}`, origin: ALLOWED_ORIGIN },
  ] as Record<string, string>[]) {
    const opened = await clientPost({ ...headers, authorization: `Bearer ${TOKEN}` }, INITIALIZE);
    expect({ headers, status: opened.status }).toEqual({ headers, status: 200 });
    expect(opened.session).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await clientPost(
      {
        ...headers,
        authorization: `Bearer ${TOKEN}`,
        'mcp-session-id': opened.session!,
        'mcp-protocol-version': '2025-06-18',
      },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('"list_runbooks"');
  }
});

test('deleting a session cancels the rehearsal its call is still running', async () => {
  const started = new Promise<void>((resolve) => (rehearsalStarted = resolve));
  const cancelled = new Promise<unknown>((resolve) => (rehearsalCancelled = resolve));
  const headers: Record<string, string> = {
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const opened = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
  await opened.body?.cancel();
  headers['mcp-session-id'] = opened.headers.get('mcp-session-id') ?? '';
  headers['mcp-protocol-version'] = '2025-06-18';
  const call = fetch(server.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'rehearse',
        arguments: { runbook: 'start-dev-services', inputs: { project_id: 'p1' } },
      },
    }),
  }).then((answer) => answer.text());
  await started;
  const deleted = await fetch(server.url, { method: 'DELETE', headers });
  expect(deleted.status).toBe(200);
  await cancelled;
  await call.catch(() => undefined);
});

test('a configured host or origin that is not one is named', () => {
  expect(allowedHostProblem('mcp.internal')).toBeUndefined();
  expect(allowedHostProblem('mcp.internal:8808')).toBeUndefined();
  expect(allowedHostProblem('http://mcp.internal')).toMatch(/is not a host name \(NAME or NAME:PORT/);
  expect(allowedOriginProblem('https://agent.example:8443')).toBeUndefined();
  expect(allowedOriginProblem('http://localhost:6274/app')).toMatch(/is not an origin .*no path/);
  expect(allowedOriginProblem('localhost:6274')).toMatch(/is not an origin/);
});
