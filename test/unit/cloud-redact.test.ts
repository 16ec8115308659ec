// Secrets (the secret key, passwords) never show in messages, printed objects or JSON.
import { inspect } from 'node:util';
import { redactOptions, type CloudClient } from '../../cloud/client';
import { CloudApiError } from '../../cloud/errors';
import { collectSecretValues, redact, REDACTED, Secret } from '../../cloud/redact';
import {
  sendJson,
  startScriptedServer,
  type ScriptedServer,
  scriptedClient,
} from '../helpers/cloud-scripted-server';
import { rejectionOf } from '../helpers/rejection';

const SECRET_KEY = 'sk_live_Zq9"wX/7+k';
const PASSWORD = 'Pa$$word-that-must-not-leak';

const failure = (pending: Promise<unknown>) => rejectionOf(pending, CloudApiError);

function everyRendering(value: unknown): string {
  return [String(value), inspect(value, { depth: 10, showHidden: true }), JSON.stringify(value)].join('\n');
}

describe('redact()', () => {
  it('replaces every occurrence, including JSON-escaped and URL-encoded forms', () => {
    const text = `a ${SECRET_KEY} b ${JSON.stringify(SECRET_KEY)} c ${encodeURIComponent(SECRET_KEY)}`;
    const result = redact(text, [SECRET_KEY]);
    expect(result).not.toContain('Zq9');
    expect(result.split(REDACTED)).toHaveLength(4);
  });

  it('replaces the longer of two overlapping secrets whole and ignores empty ones', () => {
    expect(redact('x abcdef y', ['abc', 'abcdef', '', undefined])).toBe(`x ${REDACTED} y`);
    expect(redact('nothing here', [])).toBe('nothing here');
  });

  it('collects password and secret fields at any depth', () => {
    const found = collectSecretValues({
      password: 'a',
      nested: [{ initial_password: 'b' }, { secret_key: 'c', name: 'not-secret' }],
      count: 3,
    });
    expect(found.sort()).toEqual(['a', 'b', 'c']);
  });

  it('Secret prints as [REDACTED] everywhere and reveals on demand', () => {
    const secret = new Secret(SECRET_KEY);
    const rendered = everyRendering({ secret }) + `${secret}` + String(secret);
    expect(rendered).not.toContain('Zq9');
    expect(rendered).toContain(REDACTED);
    expect(secret.reveal()).toBe(SECRET_KEY);
  });
});

describe('the client and its errors', () => {
  let server: ScriptedServer;
  let client: CloudClient;

  beforeEach(async () => {
    server = await startScriptedServer();
    client = scriptedClient(server, { accessKey: 'ak-public', secretKey: new Secret(SECRET_KEY) });
  });

  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it('does not reveal the secret key when printed or serialised', () => {
    const rendered = everyRendering(client);
    expect(rendered).not.toContain('Zq9');
    expect(rendered).not.toContain(Buffer.from(`ak-public:${SECRET_KEY}`).toString('base64'));
    expect(rendered).toContain('ak-public');
    expect(rendered).toContain(REDACTED);
  });

  it('offers a printable copy of the options', () => {
    const options = { baseUrl: server.baseUrl, accessKey: 'ak', secretKey: SECRET_KEY, timeoutMs: 5 };
    const rendered = everyRendering(redactOptions(options));
    expect(rendered).not.toContain('Zq9');
    expect(rendered).toContain(server.baseUrl);
  });

  it('scrubs the secret key, its Basic token and the request password echoed in an error body', async () => {
    server.handle((request, response) =>
      sendJson(response, 400, {
        code: 'INVALID_REQUEST',
        message: `bad: key=${SECRET_KEY} auth=${request.headers.authorization} body=${request.body}`,
      }),
    );
    const error = await failure(
      client.service.updatePassword({ project_id: 'p1', service_id: 's1', password: PASSWORD }),
    );
    expect(error.code).toBe('CLOUD_API_BAD_REQUEST');
    expect(error.message).toContain('bad: key=');
    const rendered = everyRendering(error) + String(error.stack);
    expect(rendered).not.toContain('Zq9');
    expect(rendered).not.toContain(PASSWORD);
    expect(rendered).not.toContain(Buffer.from(`ak-public:${SECRET_KEY}`).toString('base64'));
    expect(rendered).toContain(REDACTED);
  });

  it('scrubs the password from an input validation error', async () => {
    const error = await failure(
      client.service.updatePassword({
        project_id: 'p1',
        service_id: 's1',
        password: 'short',
        extra: 'short',
      } as never),
    );
    expect(error.code).toBe('CLOUD_API_BAD_REQUEST');
    expect(everyRendering(error)).not.toContain('short"');
    expect(server.requests).toHaveLength(0);
  });

  it('keeps an initial_password out of a schema error about the same answer', async () => {
    server.reply(202, { service_id: 's9', initial_password: PASSWORD, status: 42 });
    const error = await failure(client.service.create({ project_id: 'p1', name: 'orders' }));
    expect(error.code).toBe('CLOUD_API_INVALID_RESPONSE');
    expect(everyRendering(error)).not.toContain(PASSWORD);
  });

  it('returns the initial password to the caller untouched', async () => {
    server.reply(202, { service_id: 's9', initial_password: PASSWORD, status: 'QUEUED' });
    const created = await client.service.create({ project_id: 'p1', name: 'orders' });
    expect(created.initial_password).toBe(PASSWORD);
  });
});
