// The client with a bearer token instead of the key pair: what goes on the wire, which option
// combinations are refused, and that the token never shows in messages or printed objects.
import { inspect } from 'node:util';
import { createCloudClient, redactOptions, type CloudClientOptions } from '../../cloud/client';
import { CloudApiError } from '../../cloud/errors';
import { REDACTED, Secret } from '../../cloud/redact';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/cloud-scripted-server';
import { rejectionOf } from '../helpers/rejection';
import { thrownBy } from '../helpers/thrown';

/** Looks like a JWT; the characters JSON and URLs escape (`/`, `+`, `"`) test every scrubbed form. */
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwMSJ9.Zm9v/YmFy+"tok"';
const SECRET_PART = 'Zm9v';

function everyRendering(value: unknown): string {
  return [String(value), inspect(value, { depth: 10, showHidden: true }), JSON.stringify(value)].join('\n');
}

function configError(options: CloudClientOptions): CloudApiError {
  const error = thrownBy(() => createCloudClient(options));
  if (!(error instanceof CloudApiError)) throw error;
  return error;
}

let server: ScriptedServer;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await server.close();
});

describe('a client with a bearer token', () => {
  it.each([
    ['a string', TOKEN],
    ['a Secret', new Secret(TOKEN)],
  ])('sends Authorization: Bearer <token> on every request (token given as %s)', async (_label, token) => {
    const client = createCloudClient({
      baseUrl: server.baseUrl,
      bearerToken: token,
      allowInsecureLoopback: true,
    });
    try {
      server.reply(200, []);
      await client.project.list({});
      await client.service.list({ project_id: 'p1' });
      expect(server.requests.map((seen) => seen.headers.authorization)).toEqual([
        `Bearer ${TOKEN}`,
        `Bearer ${TOKEN}`,
      ]);
      expect(client.accessKey).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('a key pair client still sends Basic (the default)', async () => {
    const client = createCloudClient({
      baseUrl: server.baseUrl,
      accessKey: 'ak',
      secretKey: 'sk',
      allowInsecureLoopback: true,
    });
    try {
      server.reply(200, []);
      await client.project.list({});
      expect(server.requests[0]?.headers.authorization).toBe(
        `Basic ${Buffer.from('ak:sk').toString('base64')}`,
      );
      expect(client.accessKey).toBe('ak');
    } finally {
      await client.close();
    }
  });
});

describe('credential options', () => {
  const baseUrl = 'https://api.example.com/public/api/v1';

  it('refuses a key pair and a token at once, without echoing either', () => {
    for (const options of [
      { baseUrl, accessKey: 'ak', secretKey: 'sk-secret', bearerToken: TOKEN },
      { baseUrl, accessKey: 'ak', bearerToken: TOKEN },
      { baseUrl, secretKey: 'sk-secret', bearerToken: new Secret(TOKEN) },
    ]) {
      const error = configError(options);
      expect(error.code).toBe('CLOUD_API_CONFIG');
      expect(error.message).toBe('give either accessKey and secretKey (HTTP Basic) or bearerToken, not both');
    }
  });

  it('refuses neither, naming both ways', () => {
    const error = configError({ baseUrl });
    expect(error.code).toBe('CLOUD_API_CONFIG');
    expect(error.message).toMatch(/accessKey.*bearerToken/);
  });

  it.each([
    ['empty', ''],
    ['with the "Bearer " prefix', `Bearer ${TOKEN}`],
    ['with a line break', `${TOKEN}\r\nX-Injected: 1`],
    ['not ASCII', `${TOKEN}é`],
  ])('refuses a token that is %s, without echoing it', (_label, token) => {
    const error = configError({ baseUrl, bearerToken: token });
    expect(error.code).toBe('CLOUD_API_CONFIG');
    expect(error.message).toMatch(/^bearerToken must be/);
    expect(error.message).not.toContain(SECRET_PART);
  });

  it('redactOptions replaces the token', () => {
    const rendered = everyRendering(redactOptions({ baseUrl, bearerToken: TOKEN, timeoutMs: 5 }));
    expect(rendered).not.toContain(SECRET_PART);
    expect(rendered).toContain(REDACTED);
    expect(redactOptions({ baseUrl, bearerToken: TOKEN })).toEqual({ baseUrl, bearerToken: REDACTED });
    expect(redactOptions({ baseUrl, accessKey: 'ak', secretKey: 'sk' })).toEqual({
      baseUrl,
      accessKey: 'ak',
      secretKey: REDACTED,
    });
  });
});

describe('the token never shows', () => {
  it('in the client printed, inspected or serialised', async () => {
    const client = createCloudClient({
      baseUrl: server.baseUrl,
      bearerToken: TOKEN,
      allowInsecureLoopback: true,
    });
    try {
      const rendered = everyRendering(client) + `${client}`;
      expect(rendered).not.toContain(SECRET_PART);
      expect(rendered).toContain(REDACTED);
      expect(client.toJSON()).toEqual({ baseUrl: server.baseUrl, bearerToken: REDACTED, timeoutMs: 30_000 });
    } finally {
      await client.close();
    }
  });

  it('in the error of a call whose answer echoes the token and the header (every escaped form)', async () => {
    const client = createCloudClient({
      baseUrl: server.baseUrl,
      bearerToken: new Secret(TOKEN),
      allowInsecureLoopback: true,
    });
    try {
      server.handle((request, response) =>
        sendJson(response, 401, {
          code: 'UNAUTHORIZED',
          message: `bad token ${TOKEN} json=${JSON.stringify(TOKEN)} url=${encodeURIComponent(TOKEN)} header=${request.headers.authorization}`,
        }),
      );
      const error = await rejectionOf(client.service.list({ project_id: 'p1' }), CloudApiError);
      expect(error.code).toBe('CLOUD_API_UNAUTHORIZED');
      expect(error.message).toContain('bad token');
      const rendered = everyRendering(error) + String(error.stack);
      expect(rendered).not.toContain(SECRET_PART);
      expect(rendered).toContain(REDACTED);
    } finally {
      await client.close();
    }
  });
});
