// The codec server of `tideline dev` (the real binary) decrypts only for a caller with its token:
// a raw POST /codec/decode without it is a 401 CODEC_UNAUTHORIZED, with TIDELINE_CODEC_TOKEN it
// decrypts. The Web UI, which cannot send a token, is given a capability endpoint (/codec/t/<secret>)
// through a 0600 env file, not on the dev server's command line; that endpoint decrypts, and is
// what remains readable to local users (the UI serves its settings to anyone who asks).
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { EncryptionCodec } from '../../worker/codec';
import { payloadsFromJson, payloadsToJson } from '../../worker/codec-payload-json';
import { runTideline } from '../helpers/cli-process';
import { buildDist, testKeyRing } from '../helpers/worker-process';
import { commandLine, descendants, startDevCli, survivors, type DevCli } from './cli-dev-helpers';

jest.setTimeout(240_000);

const TOKEN = `dev-codec-token-${process.pid}-0123456789`;

const plain = (text: string): Payload => ({
  metadata: { encoding: new TextEncoder().encode('json/plain') },
  data: new TextEncoder().encode(text),
});

const texts = (body: unknown): string[] =>
  payloadsFromJson(JSON.stringify(body)).map((p) => new TextDecoder().decode(p.data ?? new Uint8Array()));

async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body,
  });
  return { status: response.status, body: await response.json() };
}

let dev: DevCli | undefined;
beforeAll(async () => {
  await buildDist();
  dev = await startDevCli(['--time-scale', '0.05'], { TIDELINE_CODEC_TOKEN: TOKEN });
}, 300_000);
afterAll(async () => {
  dev?.cli.signal('SIGTERM');
  await dev?.cli.done;
});

test('raw /codec/decode needs the token; the Web UI decrypts through its own endpoint, kept off the command line', async () => {
  const { cli, info } = dev!;
  expect(info.codec).toEqual({ endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/codec$/) });
  const endpoint = info.codec!.endpoint;
  // Sealed with the key the stack's worker uses (the test environment's TIDELINE_ENCRYPTION_KEYS).
  const sealed = JSON.stringify(
    payloadsToJson(await new EncryptionCodec(testKeyRing).encode([plain('"s3cret"')])),
  );

  // No token (from the UI's origin or from none), a wrong one: 401, and no plaintext.
  const without: Record<string, string>[] = [
    {},
    { Origin: info.temporal.webUiUrl },
    { Authorization: 'Bearer not-the-token-at-all' },
  ];
  for (const headers of without) {
    const refused = await post(`${endpoint}/decode`, sealed, headers);
    expect(refused).toEqual({
      status: 401,
      body: { error: { code: 'CODEC_UNAUTHORIZED', message: expect.any(String) } },
    });
  }
  // With the token: decrypted.
  const allowed = await post(`${endpoint}/decode`, sealed, { Authorization: `Bearer ${TOKEN}` });
  expect(allowed.status).toBe(200);
  expect(texts(allowed.body)).toEqual(['"s3cret"']);

  // What the Web UI was given: a capability endpoint under the codec endpoint. It decrypts for the
  // UI's origin with no token; a guessed secret does not.
  const settings = (await (await fetch(`${info.temporal.webUiUrl}/api/v1/settings`)).json()) as {
    Codec: { Endpoint: string; IncludeCredentials: boolean };
  };
  const uiEndpoint = settings.Codec.Endpoint;
  expect(uiEndpoint).toMatch(new RegExp(`^${endpoint}/t/[A-Za-z0-9_-]{43}$`));
  const secret = uiEndpoint.slice(`${endpoint}/t/`.length);
  const viaUi = await post(`${uiEndpoint}/decode`, sealed, { Origin: info.temporal.webUiUrl });
  expect(viaUi.status).toBe(200);
  expect(texts(viaUi.body)).toEqual(['"s3cret"']);
  const guessed = await post(`${endpoint}/t/${'A'.repeat(43)}/decode`, sealed, {
    Origin: info.temporal.webUiUrl,
  });
  expect(guessed.body).toMatchObject({ error: { code: 'CODEC_UNAUTHORIZED' } });

  // Neither the token nor the secret is on a command line of the stack; the dev server reads the
  // endpoint from an env file only its owner can read.
  const children = descendants(cli.pid);
  const lines = [cli.pid, ...children].map(commandLine);
  for (const line of lines) {
    expect(line).not.toContain(secret);
    expect(line).not.toContain(TOKEN);
  }
  const server = lines.find((line) => line.includes('server start-dev'));
  expect(server).toBeDefined();
  expect(server).not.toContain('--ui-codec-endpoint');
  const envFile = /--env-file (\S+)/.exec(server!)?.[1];
  expect(envFile).toBeDefined();
  expect(statSync(envFile!).mode & 0o777).toBe(0o600);
  expect(statSync(path.dirname(envFile!)).mode & 0o777).toBe(0o700);

  // Stopped, the stack leaves no process and no env file behind.
  cli.signal('SIGTERM');
  expect((await cli.done).code).toBe(0);
  expect(await survivors(children)).toEqual([]);
  expect(existsSync(path.dirname(envFile!))).toBe(false);
});

test('a TIDELINE_CODEC_TOKEN too short to use is a usage error, before anything starts', async () => {
  const result = await runTideline(['dev', '--port', '0', '--json'], {
    env: { TIDELINE_CODEC_TOKEN: 'short' },
    timeoutMs: 60_000,
  });
  expect(result.code).toBe(2);
  expect(JSON.parse(result.stdout)).toEqual({
    error: { code: 'CLI_USAGE', message: 'TIDELINE_CODEC_TOKEN must be at least 16 characters' },
  });
});
