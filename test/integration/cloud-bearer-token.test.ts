// Bearer token authentication end to end over real HTTP: the local cloud configured with a
// project `bearer_token`, the typed client sending `Authorization: Bearer …`. A wrong token is a
// 401 like a wrong key pair; the key pair keeps working; the project token and the control API's
// token are not interchangeable. The config file's rules for `bearer_token` are checked here too.
import { createCloudClient, type CloudClient } from '../../cloud/client';
import { CloudApiError } from '../../cloud/errors';
import { parseConfig, LocalCloudConfigError } from '../../local-cloud/config';
import { call, cloudApiClient, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { rejectionOf } from '../helpers/rejection';

// Opaque strings: the local cloud does not verify JWTs, so any configured string is a token.
const ALPHA_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbHBoYSJ9.YWxwaGEtc2lnbmF0dXJl';
const BETA_TOKEN = 'beta-opaque-token-0123456789';
const WRONG_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbHBoYSJ9.d3Jvbmctc2lnbmF0dXJl';

let tc: TestCloud;
const clients: CloudClient[] = [];

function tokenClient(bearerToken: string): CloudClient {
  const client = createCloudClient({ baseUrl: tc.url, bearerToken, allowInsecureLoopback: true });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  tc = await startTestCloud({
    config: {
      projects: [
        {
          id: 'aaaaaaaaaa',
          name: 'alpha',
          access_key: 'alpha-key',
          secret_key: 'alpha-secret-1',
          bearer_token: ALPHA_TOKEN,
        },
        { id: 'bbbbbbbbbb', name: 'beta', bearer_token: BETA_TOKEN },
      ],
    },
  });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await tc?.close();
});

test('the token client lists its project and services and creates a service', async () => {
  const api = tokenClient(ALPHA_TOKEN);
  expect(api.accessKey).toBeUndefined();
  expect(await api.project.list({})).toEqual([{ id: 'aaaaaaaaaa', name: 'alpha' }]);
  expect(await api.service.list({ project_id: 'aaaaaaaaaa' })).toEqual([]);
  const created = await api.service.create({ project_id: 'aaaaaaaaaa', name: 'via-bearer' });
  expect(created.status).toBe('QUEUED');
  const listed = await api.service.list({ project_id: 'aaaaaaaaaa' });
  expect(listed.map((service) => [service.service_id, service.name])).toEqual([
    [created.service_id, 'via-bearer'],
  ]);
  // The same project through its key pair sees the same service.
  const basic = cloudApiClient(tc);
  clients.push(basic);
  expect((await basic.service.list({ project_id: 'aaaaaaaaaa' })).map((s) => s.name)).toEqual(['via-bearer']);
});

test('a wrong or unknown token is CLOUD_API_UNAUTHORIZED and the message does not hold it', async () => {
  for (const token of [WRONG_TOKEN, `${ALPHA_TOKEN}x`, 'x'.repeat(40)]) {
    const error = await rejectionOf(
      tokenClient(token).service.list({ project_id: 'aaaaaaaaaa' }),
      CloudApiError,
    );
    expect(error.code).toBe('CLOUD_API_UNAUTHORIZED');
    expect(error.retryable).toBe(false);
    expect(`${error.message} ${error.stack}`).not.toContain(token);
  }
});

test('a token belongs to one project: another project’s resources answer 404', async () => {
  const beta = tokenClient(BETA_TOKEN);
  expect(await beta.project.list({})).toEqual([{ id: 'bbbbbbbbbb', name: 'beta' }]);
  const error = await rejectionOf(beta.service.list({ project_id: 'aaaaaaaaaa' }), CloudApiError);
  expect(error.code).toBe('CLOUD_API_NOT_FOUND');
});

test('the project token and the control token are not interchangeable', async () => {
  const controlAsProject = await call(tc, 'GET', '/projects', { authorization: tc.controlAuthorization });
  expect(controlAsProject.status).toBe(401);
  expect(controlAsProject.body).toMatchObject({ code: 'UNAUTHORIZED' });
  const projectAsControl = await call(tc, 'GET', `${tc.controlUrl}/stats`, {
    authorization: `Bearer ${ALPHA_TOKEN}`,
  });
  expect(projectAsControl.status).toBe(401);
  // And the control token itself still opens the control API.
  expect((await call(tc, 'GET', `${tc.controlUrl}/stats`)).status).toBe(200);
});

test('the scheme is case-insensitive and a token never comes back in an answer', async () => {
  const ok = await call(tc, 'GET', '/projects', { authorization: `bearer ${ALPHA_TOKEN}` });
  expect(ok.status).toBe(200);
  const refused = await call(tc, 'GET', '/projects', { authorization: `Bearer ${WRONG_TOKEN}` });
  expect(refused.status).toBe(401);
  expect(JSON.stringify(refused.body)).not.toContain('d3Jvbmc');
});

describe('bearer_token in the config file', () => {
  const project = (extra: Record<string, unknown>) => ({ projects: [{ name: 'p', ...extra }] });

  test.each([
    ['shorter than 16 characters', 'short-token'],
    ['longer than 4096 characters', 'x'.repeat(4097)],
    ['with a space', 'a token with spaces in it'],
  ])('a token %s is refused, naming the field', (_label, token) => {
    expect(() => parseConfig(project({ bearer_token: token }))).toThrow(LocalCloudConfigError);
    expect(() => parseConfig(project({ bearer_token: token }))).toThrow(
      /projects\[0\]\.bearer_token: must be 16 to 4096 printable ASCII characters without spaces/,
    );
  });

  test('two projects with the same token are refused', () => {
    const config = {
      projects: [
        { name: 'a', bearer_token: BETA_TOKEN },
        { name: 'b', bearer_token: BETA_TOKEN },
      ],
    };
    expect(() => parseConfig(config)).toThrow(/projects\[1\]\.bearer_token: duplicate bearer_token/);
  });

  test('16 and 4096 characters are fine; the token is optional', () => {
    expect(parseConfig(project({ bearer_token: 'x'.repeat(16) })).projects[0]?.bearer_token).toBe(
      'x'.repeat(16),
    );
    expect(parseConfig(project({ bearer_token: 'y'.repeat(4096) })).projects[0]?.bearer_token).toHaveLength(
      4096,
    );
    expect(parseConfig(project({})).projects[0]?.bearer_token).toBeUndefined();
  });
});
