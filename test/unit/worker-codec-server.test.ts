// The remote codec server over real HTTP on 127.0.0.1 (port 0): payloads the worker's codec sealed
// decode to the original, encode→decode round-trips, and the guards (token, origin, namespace, size).
import { request } from 'node:http';
import type { Payload } from '@temporalio/common';
import { EncryptionCodec, KEY_ID_METADATA_KEY } from '../../worker/codec';
import { payloadsFromJson, payloadsToJson } from '../../worker/codec-payload-json';
import { startCodecServer, type CodecServer } from '../../worker/codec-server';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import { parseListen, parseOrigin } from '../../cli/commands/codec-server';
import { devServerArgs } from '../../stack/temporal-dev-server';

const TOKEN = 'test-codec-token-0123456789';
const UI = 'http://127.0.0.1:8233';
const keyRing = new EncryptionKeyRing([
  { id: 'k2', key: Buffer.alloc(32, 2) },
  { id: 'k1', key: Buffer.alloc(32, 1) },
]);
const workerCodec = new EncryptionCodec(keyRing);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

function call(
  server: CodecServer,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.endpoint}${path}`,
      { method: options.method ?? 'POST', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // empty or not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    // The server may answer (413) and close before the whole body is sent.
    req.on('error', reject);
    req.end(options.body);
  });
}

const good = (extra: Record<string, string> = {}): Record<string, string> => ({
  Authorization: `Bearer ${TOKEN}`,
  'Content-Type': 'application/json',
  'X-Namespace': 'default',
  ...extra,
});

const plain = (text: string): Payload => ({
  metadata: { encoding: new TextEncoder().encode('json/plain') },
  data: new TextEncoder().encode(text),
});

const text = (payload: { data?: Uint8Array | null } | undefined): string =>
  new TextDecoder().decode(payload?.data ?? new Uint8Array());

let server: CodecServer;
beforeAll(async () => {
  server = await startCodecServer({
    keyRing,
    token: TOKEN,
    allowedOrigins: [UI],
    namespaces: ['default', 'ops'],
    maxBodyBytes: 64 * 1024,
    port: 0,
  });
});
afterAll(() => server.close());

describe('codec server: the protocol', () => {
  test('a payload the worker encrypted decodes to the original', async () => {
    const sealed = await workerCodec.encode([plain('{"password":"s3cret"}'), plain('"second"')]);
    expect(new TextDecoder().decode(sealed[0]?.metadata?.[KEY_ID_METADATA_KEY] ?? undefined)).toBe('k2');
    const answer = await call(server, '/decode', {
      headers: good(),
      body: JSON.stringify(payloadsToJson(sealed)),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    const decoded = payloadsFromJson(JSON.stringify(answer.body));
    expect(decoded.map(text)).toEqual(['{"password":"s3cret"}', '"second"']);
    expect(new TextDecoder().decode(decoded[0]?.metadata?.encoding ?? undefined)).toBe('json/plain');
  });

  test('encode then decode round-trips, and the worker decodes what the server encoded', async () => {
    const body = JSON.stringify(payloadsToJson([plain('{"n":1}')]));
    const encoded = await call(server, '/encode', { headers: good({ 'X-Namespace': 'ops' }), body });
    expect(encoded.status).toBe(200);
    const sealed = payloadsFromJson(JSON.stringify(encoded.body));
    expect(text(sealed[0])).not.toContain('"n"');
    expect((await workerCodec.decode(sealed)).map(text)).toEqual(['{"n":1}']);
    const decoded = await call(server, '/decode', { headers: good(), body: JSON.stringify(encoded.body) });
    expect(payloadsFromJson(JSON.stringify(decoded.body)).map(text)).toEqual(['{"n":1}']);
  });

  test('plain payloads pass through decode; a payload of an unknown key is a 422 naming no content', async () => {
    const answer = await call(server, '/decode', {
      headers: good(),
      body: JSON.stringify(payloadsToJson([plain('"as is"')])),
    });
    expect(payloadsFromJson(JSON.stringify(answer.body)).map(text)).toEqual(['"as is"']);
    const other = new EncryptionCodec(new EncryptionKeyRing([{ id: 'k9', key: Buffer.alloc(32, 9) }]));
    const foreign = await other.encode([plain('"hidden"')]);
    const refused = await call(server, '/decode', {
      headers: good(),
      body: JSON.stringify(payloadsToJson(foreign)),
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: { code: 'CODEC_PAYLOAD_UNREADABLE' } });
    expect(JSON.stringify(refused.body)).toContain('k9');
  });

  test('malformed bodies are a 400; other paths 404; other methods 405', async () => {
    for (const body of ['not json', '{"payloads":{}}', '{"payloads":[{"data":"%%%"}]}']) {
      const answer = await call(server, '/decode', { headers: good(), body });
      expect({ body, status: answer.status }).toEqual({ body, status: 400 });
      expect(answer.body).toMatchObject({ error: { code: 'CODEC_BAD_REQUEST' } });
    }
    expect((await call(server, '/other', { headers: good(), body: '{}' })).status).toBe(404);
    expect((await call(server, '/decode', { method: 'GET', headers: good() })).status).toBe(405);
  });
});

describe('codec server: the guards', () => {
  const body = JSON.stringify({ payloads: [] });

  test('a missing or wrong token is a 401', async () => {
    const { Authorization: _, ...noToken } = good();
    for (const headers of [
      noToken,
      good({ Authorization: 'Bearer wrong' }),
      good({ Authorization: TOKEN }),
    ]) {
      const answer = await call(server, '/decode', { headers, body });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer');
      expect(answer.body).toMatchObject({ error: { code: 'CODEC_UNAUTHORIZED' } });
    }
  });

  test('a browser signs in at /codec/login and is then let in by its HttpOnly cookie', async () => {
    const form = await call(server, '/login', { method: 'GET' });
    expect(form.status).toBe(200);
    expect(String(form.body)).toContain('<form method="post">');
    const formHeaders = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const wrong = await call(server, '/login', { headers: formHeaders, body: 'token=nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const right = await call(server, '/login', {
      headers: formHeaders,
      body: `token=${encodeURIComponent(TOKEN)}`,
    });
    expect(right.status).toBe(200);
    const cookie = right.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(
      /^tideline_codec_token=\S+; Path=\/codec; HttpOnly; SameSite=Strict; Max-Age=\d+$/,
    );
    const { Authorization: _, ...noToken } = good();
    const answer = await call(server, '/decode', {
      headers: { ...noToken, Origin: UI, Cookie: cookie.split(';')[0] ?? '' },
      body: JSON.stringify({ payloads: [] }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-credentials']).toBe('true');
    const forged = await call(server, '/decode', {
      headers: { ...noToken, Cookie: 'tideline_codec_token=forged' },
      body: JSON.stringify({ payloads: [] }),
    });
    expect(forged.status).toBe(401);
  });

  test('a namespace it is not configured for (or none) is a 403, never plaintext', async () => {
    const sealed = await workerCodec.encode([plain('"secret"')]);
    for (const namespace of ['prod', '']) {
      const answer = await call(server, '/decode', {
        headers: good({ 'X-Namespace': namespace }),
        body: JSON.stringify(payloadsToJson(sealed)),
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ error: { code: 'CODEC_NAMESPACE_FORBIDDEN' } });
      expect(JSON.stringify(answer.body)).not.toContain('secret');
    }
  });

  test('an allowed origin gets CORS on the preflight and on the answer', async () => {
    const preflight = await call(server, '/decode', {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(UI);
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('x-namespace');
    const answer = await call(server, '/decode', { headers: good({ Origin: UI }), body });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(UI);
    expect(answer.headers.vary).toBe('Origin');
  });

  test('another origin gets no CORS headers, and its POST is refused', async () => {
    const evil = 'https://evil.example.com';
    const preflight = await call(server, '/decode', {
      method: 'OPTIONS',
      headers: { Origin: evil, 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    const answer = await call(server, '/decode', { headers: good({ Origin: evil }), body });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: { code: 'CODEC_ORIGIN_FORBIDDEN' } });
    for (const headers of [preflight.headers, answer.headers]) {
      expect(Object.keys(headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  test('an oversized body is a 413, whether declared or streamed', async () => {
    const big = JSON.stringify({ payloads: [{ data: Buffer.alloc(100 * 1024).toString('base64') }] });
    const declared = await call(server, '/decode', { headers: good(), body: big });
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ error: { code: 'CODEC_BODY_TOO_LARGE' } });
    const streamed = await call(server, '/decode', {
      headers: good({ 'Transfer-Encoding': 'chunked' }),
      body: big,
    });
    expect(streamed.status).toBe(413);
  });

  test('there is no mode without a token: an empty one is refused at start', async () => {
    await expect(
      startCodecServer({ keyRing, token: '', allowedOrigins: [UI], namespaces: ['default'] }),
    ).rejects.toThrow(/needs a token/);
  });
});

describe('codec-server command flags', () => {
  test('--listen and --cors-origin are checked', () => {
    expect(parseListen(undefined)).toEqual({ host: '127.0.0.1', port: 8081 });
    expect(parseListen('0.0.0.0:0')).toEqual({ host: '0.0.0.0', port: 0 });
    expect(parseListen('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(() => parseListen('8081')).toThrow(/HOST:PORT/);
    expect(() => parseListen('h:70000')).toThrow(/HOST:PORT/);
    expect(parseOrigin('https://temporal.example.com/')).toBe('https://temporal.example.com');
    expect(() => parseOrigin('https://temporal.example.com/ui')).toThrow(/origin/);
    expect(() => parseOrigin('ftp://x')).toThrow(/origin/);
  });
});

describe('the dev stack hands the codec endpoint to the Web UI', () => {
  test('--ui-codec-endpoint goes with the UI, never to a headless server', () => {
    const endpoint = 'http://127.0.0.1:45678/codec';
    const args = devServerArgs({ port: 7233, uiPort: 8233, uiCodecEndpoint: endpoint });
    expect(args.join(' ')).toContain(`--ui-port 8233 --ui-codec-endpoint ${endpoint}`);
    expect(devServerArgs({ port: 7233, uiCodecEndpoint: endpoint })).not.toContain('--ui-codec-endpoint');
    expect(devServerArgs({ port: 7233, uiPort: 8233 })).not.toContain('--ui-codec-endpoint');
  });
});
