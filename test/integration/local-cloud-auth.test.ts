// HTTP Basic auth of the local cloud: 401 without or with wrong credentials; a key sees only its
// own project, and another project's resources answer 404 (their existence is not revealed).
import type { Service } from '../../cloud/models';
import { basicAuth, call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

let tc: TestCloud;

beforeAll(async () => {
  tc = await startTestCloud({
    config: {
      projects: [
        { id: 'aaaaaaaaaa', name: 'alpha', access_key: 'alpha-key', secret_key: 'alpha-secret-1' },
        { id: 'bbbbbbbbbb', name: 'beta', access_key: 'beta-key', secret_key: 'beta-secret-22' },
      ],
    },
  });
});
afterAll(() => tc.close());

const alpha = () => basicAuth('alpha-key', 'alpha-secret-1');
const beta = () => basicAuth('beta-key', 'beta-secret-22');

const NO_BEARER = { details: 'no project of this local cloud has a bearer_token: use HTTP Basic' };

test.each([
  ['no Authorization header', null, {}],
  ['a wrong secret key', basicAuth('alpha-key', 'not-the-secret'), {}],
  ['an unknown access key', basicAuth('who-key', 'alpha-secret-1'), {}],
  // The actionable part goes in `details`, as the real API sends it.
  ['a bearer token where no project has one', 'Bearer alpha-secret-1', NO_BEARER],
  ['Basic without a colon', `Basic ${Buffer.from('alpha-key').toString('base64')}`, {}],
])('%s answers 401 UNAUTHORIZED without echoing secrets', async (_label, authorization, details) => {
  const answer = await call(tc, 'GET', '/projects/aaaaaaaaaa/services', { authorization });
  expect(answer.status).toBe(401);
  expect(answer.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String), ...details });
  expect(answer.headers['www-authenticate']).toMatch(/^Basic/);
  expect(JSON.stringify(answer.body)).not.toMatch(/secret-1|secret-22/);
});

test('each key lists only its own project', async () => {
  const listed = async (authorization: string) => {
    const answer = await call<{ id: string; name: string }[]>(tc, 'GET', '/projects', { authorization });
    return answer.body.map(({ id, name }) => ({ id, name }));
  };
  expect(await listed(alpha())).toEqual([{ id: 'aaaaaaaaaa', name: 'alpha' }]);
  expect(await listed(beta())).toEqual([{ id: 'bbbbbbbbbb', name: 'beta' }]);
});

test('another project’s resources answer 404, exactly like resources that do not exist', async () => {
  const created = await call<Service>(tc, 'POST', '/projects/aaaaaaaaaa/services', {
    authorization: alpha(),
    body: { name: 'private' },
  });
  expect(created.status).toBe(202);
  const id = created.body.service_id!;
  const p = paths({ ...tc, project: { ...tc.project, id: 'aaaaaaaaaa' } });

  const foreign = await call(tc, 'GET', p.service(id), { authorization: beta() });
  const missing = await call(tc, 'GET', '/projects/cccccccccc/services/zzzzzzzzzz', {
    authorization: beta(),
  });
  expect(foreign.status).toBe(404);
  expect(foreign.body.code).toBe('NOT_FOUND');
  expect(missing.status).toBe(404);
  expect((await call(tc, 'DELETE', p.service(id), { authorization: beta() })).status).toBe(404);
  expect((await call(tc, 'GET', p.services, { authorization: beta() })).status).toBe(404);
  // The service is untouched and still visible to its owner.
  expect((await call(tc, 'GET', p.service(id), { authorization: alpha() })).status).toBe(200);
  expect(
    (await call<Service[]>(tc, 'GET', '/projects/bbbbbbbbbb/services', { authorization: beta() })).body,
  ).toEqual([]);
});
