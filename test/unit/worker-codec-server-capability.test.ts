// The codec server's capability endpoint (for a Web UI that can send neither a token nor a cookie),
// over real HTTP on 127.0.0.1: `/codec/t/<secret>/decode` decodes without a token, a wrong or
// missing secret is a 401 like a missing token, the plain endpoint still needs the token, and the
// other guards (origin, namespace) hold on the capability path too. And how the dev server is
// given it: an env file of the `temporal` CLI only its owner reads, never the command line.
import { readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { StackError } from '../../stack/stack-error';
import { codecToken } from '../../stack/codec-token';
import { devServerArgs, UI_CODEC_ENV, writeUiCodecEnvFile } from '../../stack/temporal-dev-server';
import { EncryptionCodec } from '../../worker/codec';
import { payloadsFromJson, payloadsToJson } from '../../worker/codec-payload-json';
import { startCodecServer, type CodecServer } from '../../worker/codec-server';
import { EncryptionKeyRing } from '../../worker/encryption-keys';

const TOKEN = 'capability-test-token-0123456789';
const SECRET = 'c2VjcmV0LXBhdGgtc2VjcmV0LW9mLTMyLWJ5dGVzLW9r';
const UI = 'http://127.0.0.1:8233';
const keyRing = new EncryptionKeyRing([{ id: 'k1', key: Buffer.alloc(32, 1) }]);
const workerCodec = new EncryptionCodec(keyRing);

const plain = (text: string): Payload => ({
  metadata: { encoding: new TextEncoder().encode('json/plain') },
  data: new TextEncoder().encode(text),
});

let server: CodecServer;
let sealed: string;
beforeAll(async () => {
  server = await startCodecServer({
    keyRing,
    token: TOKEN,
    pathSecret: SECRET,
    allowedOrigins: [UI],
    namespaces: ['default'],
    port: 0,
  });
  sealed = JSON.stringify(payloadsToJson(await workerCodec.encode([plain('{"password":"s3cret"}')])));
});
afterAll(() => server.close());

async function decode(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: sealed,
  });
  return { status: response.status, body: await response.json() };
}

const decodedText = (body: unknown): string[] =>
  payloadsFromJson(JSON.stringify(body)).map((p) => new TextDecoder().decode(p.data ?? new Uint8Array()));

describe('the capability endpoint', () => {
  test('is <endpoint>/t/<secret>, and decodes with no token', async () => {
    expect(server.capabilityEndpoint).toBe(`${server.endpoint}/t/${SECRET}`);
    const answer = await decode(`${server.capabilityEndpoint}/decode`, { Origin: UI });
    expect(answer.status).toBe(200);
    expect(decodedText(answer.body)).toEqual(['{"password":"s3cret"}']);
  });

  test('the plain endpoint still needs the token: 401 CODEC_UNAUTHORIZED without it, 200 with it', async () => {
    const refused = await decode(`${server.endpoint}/decode`, { Origin: UI });
    expect(refused).toEqual({
      status: 401,
      body: { error: { code: 'CODEC_UNAUTHORIZED', message: expect.any(String) } },
    });
    const allowed = await decode(`${server.endpoint}/decode`, { Authorization: `Bearer ${TOKEN}` });
    expect(decodedText(allowed.body)).toEqual(['{"password":"s3cret"}']);
  });

  test('a wrong, cut or extended secret is a 401, even with the right token', async () => {
    for (const wrong of [`${SECRET.slice(0, -1)}A`, SECRET.slice(0, -1), `${SECRET}x`, '', 'decode']) {
      const answer = await decode(`${server.endpoint}/t/${wrong}/decode`, {
        Authorization: `Bearer ${TOKEN}`,
      });
      expect({ wrong, status: answer.status }).toEqual({ wrong, status: 401 });
      expect(answer.body).toMatchObject({ error: { code: 'CODEC_UNAUTHORIZED' } });
      expect(JSON.stringify(answer.body)).not.toContain(SECRET);
    }
    expect((await decode(`${server.endpoint}/t/${SECRET}`)).status).toBe(404);
    expect((await decode(`${server.endpoint}/t/${SECRET}/other`)).status).toBe(404);
  });

  test('the origin and namespace checks hold on it; the UI origin gets its CORS preflight', async () => {
    const foreign = await decode(`${server.capabilityEndpoint}/decode`, {
      Origin: 'https://evil.example.com',
    });
    expect(foreign.body).toMatchObject({ error: { code: 'CODEC_ORIGIN_FORBIDDEN' } });
    const otherNamespace = await decode(`${server.capabilityEndpoint}/decode`, { 'X-Namespace': 'prod' });
    expect(otherNamespace.body).toMatchObject({ error: { code: 'CODEC_NAMESPACE_FORBIDDEN' } });
    const preflight = await fetch(`${server.capabilityEndpoint}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: UI, 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
  });

  test('encode works through it too', async () => {
    const response = await fetch(`${server.capabilityEndpoint}/encode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default' },
      body: JSON.stringify(payloadsToJson([plain('{"n":1}')])),
    });
    expect(response.status).toBe(200);
    const encoded = payloadsFromJson(JSON.stringify(await response.json()));
    expect(
      (await workerCodec.decode(encoded)).map((p) => new TextDecoder().decode(p.data ?? undefined)),
    ).toEqual(['{"n":1}']);
  });

  test('a short or non-URL-safe secret is refused at start; without one there is no capability path', async () => {
    for (const pathSecret of ['short', `${'a'.repeat(40)}/x`, `${'a'.repeat(40)}%2F`]) {
      await expect(
        startCodecServer({ keyRing, token: TOKEN, pathSecret, allowedOrigins: [], namespaces: ['default'] }),
      ).rejects.toThrow(/path secret/);
    }
    const plainServer = await startCodecServer({
      keyRing,
      token: TOKEN,
      allowedOrigins: [],
      namespaces: ['default'],
    });
    try {
      expect(plainServer.capabilityEndpoint).toBeUndefined();
      expect((await decode(`${plainServer.endpoint}/t/${SECRET}/decode`)).status).toBe(404);
      expect((await decode(`${plainServer.endpoint}/decode`)).status).toBe(401);
    } finally {
      await plainServer.close();
    }
  });
});

describe('the token of a codec server', () => {
  test('TIDELINE_CODEC_TOKEN when set (16+ characters), otherwise 32 random bytes', () => {
    expect(codecToken(` ${TOKEN} `)).toEqual({ token: TOKEN, source: 'env' });
    expect(() => codecToken('too-short')).toThrow(StackError);
    const first = codecToken(undefined);
    const second = codecToken('');
    expect(first.source).toBe('generated');
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.token).not.toBe(first.token);
  });
});

describe('the dev server gets the capability endpoint from a file, not its command line', () => {
  test('an env file only its owner reads, in a folder only its owner enters; removed on request', () => {
    const endpoint = `http://127.0.0.1:45678/codec/t/${SECRET}`;
    const envFile = writeUiCodecEnvFile(endpoint);
    try {
      expect(statSync(envFile.file).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(envFile.file)).mode & 0o777).toBe(0o700);
      expect(readFileSync(envFile.file, 'utf8')).toBe(
        `env:\n  ${UI_CODEC_ENV}:\n    ui-codec-endpoint: "${endpoint}"\n`,
      );
      const args = devServerArgs({ port: 7233, uiPort: 8233, uiCodecEnvFile: envFile.file });
      expect(args.join(' ')).toContain(`--ui-port 8233 --env-file ${envFile.file} --env ${UI_CODEC_ENV}`);
      expect(args.join(' ')).not.toContain(SECRET);
      expect(args).not.toContain('--ui-codec-endpoint');
      // Headless: no UI, no codec endpoint for it.
      expect(devServerArgs({ port: 7233, uiCodecEnvFile: envFile.file })).not.toContain('--env-file');
      expect(() =>
        devServerArgs({ port: 7233, uiPort: 8233, uiCodecEndpoint: endpoint, uiCodecEnvFile: envFile.file }),
      ).toThrow(/not both/);
    } finally {
      envFile.remove();
    }
    expect(existsSync(path.dirname(envFile.file))).toBe(false);
  });
});
