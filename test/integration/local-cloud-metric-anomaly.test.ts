// The metricAnomaly fault over real HTTP: a rule added through the control API makes one service's
// series read the injected value from the moment it was added (or its `from`) on, leaves the
// buckets before it and every other service alone, and reaches tideline's own typed client.
import type { MetricSeries, Service } from '../../cloud/models';
import { call, cloudApiClient, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

const MINUTE = 60_000;
const CPU = 'timescale_cloud_system_cpu_usage_millicores';

let tc: TestCloud;
let p: ReturnType<typeof paths>;

beforeAll(async () => {
  tc = await startTestCloud({ manualClock: true });
  p = paths(tc);
});
afterAll(() => tc.close());
afterEach(async () => {
  expect((await call(tc, 'DELETE', `${tc.controlUrl}/faults`)).status).toBe(204);
});

const settle = () => tc.advance(Math.max(...Object.values(tc.cloud.durations)) * 3);

async function readyService(name: string): Promise<string> {
  const created = await call<Service>(tc, 'POST', p.services, {
    body: { name, cpu_millis: '4000', memory_gbs: '16' },
  });
  expect(created.status).toBe(202);
  settle();
  return created.body.service_id!;
}

async function now(): Promise<number> {
  const health = await call<{ now: string }>(tc, 'GET', `${tc.controlUrl}/health`);
  return Date.parse(health.body.now);
}

/** The CPU points of a service's primary over the last `minutes` (one a minute), by bucket start. */
async function cpuPoints(serviceId: string, minutes: number): Promise<Map<number, number | undefined>> {
  const to = await now();
  const answer = await call<MetricSeries[]>(tc, 'POST', `${p.service(serviceId)}/metrics/series`, {
    body: {
      name: CPU,
      from: new Date(to - minutes * MINUTE).toISOString(),
      to: new Date(to).toISOString(),
    },
  });
  expect(answer.status).toBe(200);
  const data = answer.body[0]?.data ?? [];
  const points = new Map(data.map((point) => [Date.parse(point.time), point.value]));
  // That many distinct buckets, so a check over every point checks that many.
  expect(points.size).toBeGreaterThanOrEqual(minutes);
  return points;
}

/** Whether a one-minute bucket starting at `time` ends after `start`: the anomaly's buckets. */
const endsAfter = (time: number, start: number) => time + MINUTE > start;

async function addFault(rule: Record<string, unknown>) {
  return call<{ rules: Record<string, unknown>[] }>(tc, 'POST', `${tc.controlUrl}/faults`, { body: rule });
}

test("from the moment it is added, one service's CPU reads the anomaly; the others do not", async () => {
  const target = await readyService('anomaly-target');
  const other = await readyService('anomaly-other');
  tc.advance(20 * MINUTE);
  const before = await cpuPoints(target, 10);
  expect(before.size).toBeGreaterThanOrEqual(10);
  expect([...before.values()].every((value) => value !== undefined && value < 3990)).toBe(true);

  const added = await addFault({
    action: 'service.metricsSeries',
    kind: 'metricAnomaly',
    service: 'anomaly-target',
    value: 3990,
  });
  expect(added.status).toBe(201);
  const start = await now();
  expect(added.body.rules[0]).toMatchObject({ series: CPU, from: new Date(start).toISOString() });

  tc.advance(5 * MINUTE);
  const after = await cpuPoints(target, 10);
  for (const [time, value] of after) {
    // Buckets that ended before the anomaly keep their values: the history is not rewritten.
    if (endsAfter(time, start)) expect(value).toBe(3990);
    else expect(value).toBe(before.get(time));
  }
  expect([...after.values()].filter((value) => value === 3990).length).toBeGreaterThanOrEqual(5);
  expect([...(await cpuPoints(other, 10)).values()]).not.toContain(3990);
});

test('a rule names its service by id, its start and how many reads it changes', async () => {
  const target = await readyService('anomaly-by-id');
  tc.advance(20 * MINUTE);
  const start = (await now()) - 3 * MINUTE;
  const added = await addFault({
    action: '*',
    kind: 'metricAnomaly',
    service: target,
    value: 1234,
    from: new Date(start).toISOString(),
    times: 1,
  });
  expect(added.status).toBe(201);
  const changed = await cpuPoints(target, 10);
  for (const [time, value] of changed) expect(value === 1234).toBe(endsAfter(time, start));
  // Spent: the next read is the service's own again.
  expect([...(await cpuPoints(target, 10)).values()]).not.toContain(1234);
});

test("tideline's typed client reads the anomaly", async () => {
  const target = await readyService('anomaly-typed');
  tc.advance(20 * MINUTE);
  expect(
    (await addFault({ action: 'service.metricsSeries', kind: 'metricAnomaly', service: target, value: 3999 }))
      .status,
  ).toBe(201);
  tc.advance(2 * MINUTE);
  const to = await now();
  const client = cloudApiClient(tc);
  try {
    const read = await client.service.metricsSeries({
      project_id: tc.project.id,
      service_id: target,
      name: CPU,
      from: new Date(to - 2 * MINUTE).toISOString(),
      to: new Date(to).toISOString(),
    });
    expect(read[0]?.data?.map((point) => point.value)).toContain(3999);
  } finally {
    await client.close();
  }
});

test('the control API refuses an anomaly on an operation that answers no metric series', async () => {
  const refused = await addFault({ action: 'service.get', kind: 'metricAnomaly', service: 'x', value: 1 });
  expect(refused.status).toBe(400);
  expect(JSON.stringify(refused.body)).toContain('metricAnomaly applies only to service.metricsSeries');
});
