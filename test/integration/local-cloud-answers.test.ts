// The local cloud's answer observer (`onAnswer`): it sees every answer of a catalogue route as it
// went out — status, parsed JSON body (undefined when there is none) and dialect — errors
// included, and nothing of the control API or of unknown routes.
import type { ApiAnswer } from '../../local-cloud/server';
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

let tc: TestCloud;
const answers: ApiAnswer[] = [];
let throwing = false;

beforeAll(async () => {
  tc = await startTestCloud({
    onAnswer: (answer) => {
      answers.push(answer);
      if (throwing) throw new Error('observer failure');
    },
  });
});
afterAll(() => tc.close());
beforeEach(() => {
  answers.length = 0;
  throwing = false;
});

test('a success with a body, one without, and an error answer are each observed once', async () => {
  const p = paths(tc);
  const created = await call(tc, 'POST', p.vpcs, {
    body: { name: 'observed', cidr: '10.0.0.0/16', region_code: 'us-east-1' },
  });
  expect(created.status).toBe(201);
  const deleted = await call(tc, 'DELETE', p.vpc(String(created.body.id)));
  expect(deleted.status).toBe(204);
  const missing = await call(tc, 'GET', p.service('nosuchsvc0'));
  expect(missing.status).toBe(404);
  const unauthenticated = await call(tc, 'GET', p.services, { authorization: null });
  expect(unauthenticated.status).toBe(401);

  // The cloud was started without a dialect: the current one is the default.
  expect(answers).toEqual([
    { action: 'vpc.create', status: 201, body: created.body, dialect: 'current' },
    { action: 'vpc.delete', status: 204, body: undefined, dialect: 'current' },
    { action: 'service.get', status: 404, body: missing.body, dialect: 'current' },
    { action: 'service.list', status: 401, body: unauthenticated.body, dialect: 'current' },
  ]);
  expect(missing.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
});

test('control API answers and unknown routes are not observed', async () => {
  expect((await call(tc, 'GET', `${tc.controlUrl}/stats`)).status).toBe(200);
  expect((await call(tc, 'GET', '/no/such/route')).status).toBe(404);
  expect(answers).toEqual([]);
});

test('an observer that throws leaves the answer unchanged', async () => {
  throwing = true;
  const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  try {
    const listed = await call(tc, 'GET', paths(tc).services);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/onAnswer threw: observer failure/));
    expect(answers).toHaveLength(1);
  } finally {
    warn.mockRestore();
  }
});
