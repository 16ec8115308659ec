// API conformance: injected faults of the local cloud reach callers of the typed client as the right
// stable codes: 429 → RATE_LIMITED with the Retry-After delay, 5xx → SERVER_ERROR, a dropped
// connection → NETWORK (and the change still happened), latency past the deadline → TIMEOUT.
import { request } from 'undici';
import type { FaultRuleInput } from '../../local-cloud/fault-schema';
import {
  expectCloudError,
  startConformanceCloud,
  type ConformanceCloud,
} from '../helpers/api-conformance-fixtures';

let fx: ConformanceCloud;
let project: { project_id: string };

beforeAll(async () => {
  fx = await startConformanceCloud();
  project = { project_id: fx.projectId };
});
afterAll(() => fx.close());
afterEach(async () => {
  const answer = await request(`${fx.tc.controlUrl}/faults`, {
    method: 'DELETE',
    headers: { authorization: fx.tc.controlAuthorization },
  });
  await answer.body.dump();
  expect(answer.statusCode).toBe(204);
});

/** Adds fault rules through the control API, as a test harness or benchmark would. */
async function addFault(rule: FaultRuleInput): Promise<void> {
  const answer = await request(`${fx.tc.controlUrl}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: fx.tc.controlAuthorization },
    body: JSON.stringify(rule),
  });
  await answer.body.dump();
  expect(answer.statusCode).toBe(201);
}

const serviceCount = async () => (await fx.client.service.list(project)).length;

describe('429 rate limit', () => {
  test('Retry-After in seconds becomes retryAfterMs; the next call succeeds', async () => {
    await addFault({ action: 'service.list', kind: 'rateLimit', retryAfterSeconds: 3, times: 1 });
    const error = await expectCloudError(fx.client.service.list(project), {
      code: 'CLOUD_API_RATE_LIMITED',
      status: 429,
      apiCode: 'RATE_LIMITED',
      retryAfterMs: 3000,
      retryable: true,
    });
    expect(error.message).toContain('3000 ms');
    expect(await fx.client.service.list(project)).toEqual(expect.any(Array));
  });

  test('Retry-After as an HTTP date becomes a delay of about that long', async () => {
    await addFault({
      action: 'service.create',
      kind: 'rateLimit',
      retryAfterSeconds: 30,
      retryAfterFormat: 'date',
      times: 1,
    });
    const before = await serviceCount();
    const sent = Date.now();
    const error = await expectCloudError(fx.client.service.create({ ...project, name: 'limited' }), {
      code: 'CLOUD_API_RATE_LIMITED',
      status: 429,
    });
    // An HTTP date has whole seconds, and the call takes a moment between the answer and the parse.
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(30_000 - 1_000 - (Date.now() - sent));
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(await serviceCount()).toBe(before);
  });
});

describe('5xx server errors', () => {
  test('an injected 503 before the change: SERVER_ERROR, nothing created', async () => {
    await addFault({ action: 'service.create', kind: 'error', status: 503, times: 1 });
    const before = await serviceCount();
    await expectCloudError(fx.client.service.create({ ...project, name: 'unlucky' }), {
      code: 'CLOUD_API_SERVER_ERROR',
      status: 503,
      apiCode: 'INTERNAL',
      retryable: true,
    });
    expect(await serviceCount()).toBe(before);
    expect(await fx.answered('service.create', 503)).toBe(1);
  });

  test('applyThenFail with a 500: SERVER_ERROR, yet the service exists', async () => {
    await addFault({ action: 'service.create', kind: 'applyThenFail', mode: 'error', status: 500, times: 1 });
    const before = await fx.client.service.list(project);
    await expectCloudError(fx.client.service.create({ ...project, name: 'ghost' }), {
      code: 'CLOUD_API_SERVER_ERROR',
      status: 500,
    });
    const after = await fx.client.service.list(project);
    expect(after).toHaveLength(before.length + 1);
    expect(after.filter((service) => service.name === 'ghost')).toHaveLength(1);
  });
});

describe('dropped connections', () => {
  test('applyThenFail drop: NETWORK with no status, and the resize did happen', async () => {
    const service_id = await fx.readyService('dropped');
    await addFault({ action: 'service.resize', kind: 'applyThenFail', mode: 'drop', times: 1 });
    await expectCloudError(
      fx.client.service.resize({ ...project, service_id, cpu_millis: '8000', memory_gbs: '32' }),
      { code: 'CLOUD_API_NETWORK', status: undefined, retryable: true },
    );
    expect(await fx.answered('service.resize', 'dropped')).toBe(1);
    expect((await fx.getService(service_id)).status).toBe('CONFIGURING');
    fx.settle();
    const after = await fx.getService(service_id);
    expect(after.status).toBe('READY');
    expect(after.resources?.[0]?.spec).toMatchObject({ cpu_millis: 8000, memory_gbs: 32 });
  });

  test('after a drop the same client keeps working', async () => {
    await addFault({ action: 'vpc.list', kind: 'applyThenFail', mode: 'drop', times: 1 });
    await expectCloudError(fx.client.vpc.list(project), { code: 'CLOUD_API_NETWORK' });
    expect(await fx.client.vpc.list(project)).toEqual(expect.any(Array));
  });
});

describe('latency', () => {
  test("latency past the client's timeoutMs: TIMEOUT, promptly", async () => {
    const service_id = await fx.readyService('slow');
    await addFault({ action: 'service.get', kind: 'latency', ms: 3_000, times: 1 });
    const impatient = fx.clientFor({ timeoutMs: 150 });
    // The server answers 200 once its 3 s are up: a TIMEOUT naming the client's 150 ms shows the
    // client gave up at its own deadline, not the server's (no wall-clock ceiling needed).
    const error = await expectCloudError(impatient.service.get({ ...project, service_id }), {
      code: 'CLOUD_API_TIMEOUT',
      status: undefined,
      retryable: true,
    });
    expect(error.message).toContain('150 ms');
  });

  test('a per-call timeoutMs overrides the client default', async () => {
    await addFault({ action: 'project.list', kind: 'latency', ms: 3_000, times: 1 });
    await expectCloudError(fx.client.call('project.list', {}, { timeoutMs: 100 }), {
      code: 'CLOUD_API_TIMEOUT',
    });
  });

  test('latency within the deadline only slows the answer down', async () => {
    await addFault({ action: 'vpc.list', kind: 'latency', ms: 120, times: 1 });
    const started = Date.now();
    expect(await fx.client.vpc.list(project)).toEqual(expect.any(Array));
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});
