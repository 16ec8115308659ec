// The local cloud's preview metrics over real HTTP: the series names, and series derived from a
// service's size and the clock, stable between reads, one point per bucket from the bucket in which
// the service became READY up to now (the seed dialect leaves the other buckets out), per node
// selected by `role`, and the vendor's 400s; then the current dialect's `value: null` gaps.
import type { MetricSeries, Service } from '../../cloud/models';
import { EXTRA_FIELD } from '../../local-cloud/dialect';
import { call, cloudApiClient, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

const MINUTE = 60_000;
const GIB = 1024 ** 3;

let tc: TestCloud;
let p: ReturnType<typeof paths>;

beforeAll(async () => {
  // The seed dialect: its series hold only buckets with data, which the checks below count on.
  tc = await startTestCloud({ manualClock: true, dialect: 'seed' });
  p = paths(tc);
});
afterAll(() => tc.close());

const settle = () => tc.advance(Math.max(...Object.values(tc.cloud.durations)) * 3);

/** A READY service of this size, and when it was created. */
async function readyService(name: string, size: { cpu_millis: string; memory_gbs: string }) {
  const created = await call<Service>(tc, 'POST', p.services, { body: { name, ...size } });
  expect(created.status).toBe(202);
  settle();
  return { id: created.body.service_id!, createdAt: Date.parse(created.body.created!) };
}

function series<T = MetricSeries[]>(serviceId: string, body: Record<string, unknown>) {
  return call<T>(tc, 'POST', `${p.service(serviceId)}/metrics/series`, { body });
}

const window = (from: number, to: number) => ({
  from: new Date(from).toISOString(),
  to: new Date(to).toISOString(),
});

test('available-series names the series every service has, sorted; an unknown service is 404', async () => {
  const { id } = await readyService('names', { cpu_millis: '500', memory_gbs: '2' });
  const answer = await call<string[]>(tc, 'GET', `${p.service(id)}/metrics/available-series`);
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual(
    expect.arrayContaining([
      'timescale_cloud_system_cpu_usage_millicores',
      'timescale_cloud_system_memory_usage_bytes',
      'timescale_cloud_system_disk_usage_bytes',
      'timescale_cloud_database_num_connections',
    ]),
  );
  expect(answer.body).toEqual([...answer.body].sort());
  const missing = await call(tc, 'GET', `${p.service('nosuchsvc0')}/metrics/available-series`);
  expect(missing.status).toBe(404);
});

test("series follow the service's size, one point a minute from READY to now, stable between reads", async () => {
  const { id, createdAt } = await readyService('sized', { cpu_millis: '2000', memory_gbs: '8' });
  tc.advance(30 * MINUTE);
  const hour = window(createdAt - 10 * MINUTE, createdAt + 50 * MINUTE);
  const total = await series(id, { name: 'timescale_cloud_system_cpu_total_millicores', ...hour });
  expect(total.status).toBe(200);
  expect(total.body).toHaveLength(1);
  const [primary] = total.body;
  expect(primary!.labels).toEqual({ role: 'primary', ordinal: '0' });
  const times = primary!.data!.map((point) => Date.parse(point.time));
  expect(times[0]!).toBeGreaterThanOrEqual(createdAt - MINUTE);
  expect(times[times.length - 1]!).toBeLessThanOrEqual(createdAt + 50 * MINUTE);
  expect(times.every((t, i) => i === 0 || t - times[i - 1]! === MINUTE)).toBe(true);
  expect(primary!.data!.every((point) => point.value === 2000)).toBe(true);

  const memory = await series(id, { name: 'timescale_cloud_system_memory_usage_bytes', ...hour });
  for (const point of memory.body[0]!.data!) {
    expect(point.value).toBeGreaterThan(0);
    expect(point.value).toBeLessThanOrEqual(8 * GIB);
  }
  const cpu = await series(id, { name: 'timescale_cloud_system_cpu_usage_millicores', ...hour });
  expect(new Set(cpu.body[0]!.data!.map((point) => point.value)).size).toBeGreaterThan(1);

  // Later reads add the new buckets and keep the earlier ones as they were.
  tc.advance(30 * MINUTE);
  const later = await series(id, { name: 'timescale_cloud_system_cpu_usage_millicores', ...hour });
  expect(later.body[0]!.data!.slice(0, cpu.body[0]!.data!.length)).toEqual(cpu.body[0]!.data);
  expect(later.body[0]!.data!.length).toBeGreaterThan(cpu.body[0]!.data!.length);
});

test('a longer window reads hourly buckets, or the coarser bucket asked for; none before the service', async () => {
  const { id, createdAt } = await readyService('coarse', { cpu_millis: '500', memory_gbs: '2' });
  tc.advance(6 * 60 * MINUTE);
  const day = window(createdAt - 24 * 60 * MINUTE, createdAt + 24 * 60 * MINUTE);
  const hourly = await series(id, { name: 'timescale_cloud_system_disk_usage_bytes', ...day });
  const times = hourly.body[0]!.data!.map((point) => Date.parse(point.time));
  expect(times.every((t) => t % (60 * MINUTE) === 0 && t >= createdAt - 60 * MINUTE)).toBe(true);
  expect(times.length).toBeGreaterThanOrEqual(6);
  const twoHourly = await series(id, {
    name: 'timescale_cloud_system_disk_usage_bytes',
    ...day,
    bucket_seconds: 7200,
  });
  expect(twoHourly.body[0]!.data!.length).toBeLessThan(times.length);

  const before = await series(id, {
    name: 'timescale_cloud_system_disk_usage_bytes',
    ...window(createdAt - 120 * MINUTE, createdAt - 61 * MINUTE),
  });
  expect(before.body).toEqual([{ labels: { role: 'primary', ordinal: '0' }, data: [] }]);
});

test('role filters select the HA replicas, one series each; other filters match labels', async () => {
  const { id, createdAt } = await readyService('replicated', { cpu_millis: '1000', memory_gbs: '4' });
  const hour = window(createdAt, createdAt + 60 * MINUTE);
  const name = 'timescale_cloud_database_num_connections';
  const replica = [{ key: 'role', value: 'REPLICA' }];
  expect((await series(id, { name, ...hour, filters: replica })).body).toEqual([]);

  const ha = await call(tc, 'POST', `${p.service(id)}/setHA`, { body: { replica_count: 2 } });
  expect(ha.status).toBe(202);
  settle();
  const replicas = await series(id, { name, ...hour, filters: replica });
  expect(replicas.body.map((one) => one.labels)).toEqual([
    { role: 'replica', ordinal: '1' },
    { role: 'replica', ordinal: '2' },
  ]);
  for (const point of replicas.body.flatMap((one) => one.data!))
    expect(Number.isInteger(point.value)).toBe(true);
  const second = await series(id, { name, ...hour, filters: [...replica, { key: 'ordinal', value: '2' }] });
  expect(second.body.map((one) => one.labels?.ordinal)).toEqual(['2']);
  expect((await series(id, { name, ...hour })).body.map((one) => one.labels?.role)).toEqual(['primary']);
});

test('an unknown series, fn on a system metric, a too-fine bucket and a reversed window are 400', async () => {
  const { id, createdAt } = await readyService('refused', { cpu_millis: '500', memory_gbs: '2' });
  const hour = window(createdAt, createdAt + 60 * MINUTE);
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ name: 'no_such_series', ...hour }, /unknown metric series "no_such_series"/],
    [{ name: 'timescale_cloud_database_qps', ...hour, fn: 'AVG' }, /fn is not accepted/],
    [
      {
        name: 'timescale_cloud_database_qps',
        ...window(createdAt, createdAt + 2 * 60 * MINUTE),
        bucket_seconds: 60,
      },
      /use at least 3600/,
    ],
    [{ name: 'timescale_cloud_database_qps', from: hour.to, to: hour.from }, /to must be later than from/],
  ];
  for (const [body, message] of cases) {
    const answer = await series<{ code?: string; message?: string }>(id, body);
    expect({ status: answer.status, code: answer.body.code }).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
    });
    expect(String(answer.body.message)).toMatch(message);
  }
});

test('the current dialect sends every bucket, a gap with value null, and its unknown field; the client reads both', async () => {
  const current = await startTestCloud({ manualClock: true, dialect: 'current' });
  try {
    const cp = paths(current);
    const created = await call<Service>(current, 'POST', cp.services, { body: { name: 'current' } });
    current.advance(Math.max(...Object.values(current.cloud.durations)) * 3);
    const at = Date.parse(created.body.created!);
    // An hour around the service's first 20 minutes: gaps before READY and after now.
    current.advance(20 * MINUTE);
    const hour = window(at - 20 * MINUTE, at + 40 * MINUTE);
    const name = 'timescale_cloud_system_cpu_total_millicores';
    const answer = await call<{ data: { time: string; value: number | null }[] }[]>(
      current,
      'POST',
      `${cp.service(created.body.service_id!)}/metrics/series`,
      { body: { name, ...hour } },
    );
    expect(answer.status).toBe(200);
    expect(answer.body[0]).toHaveProperty(EXTRA_FIELD);
    const points = answer.body[0]!.data;
    const start = Math.floor(Date.parse(hour.from) / MINUTE) * MINUTE;
    expect(points.map((point) => Date.parse(point.time))).toEqual(
      Array.from({ length: points.length }, (_, i) => start + i * MINUTE),
    );
    expect(points.length).toBeGreaterThanOrEqual(60);
    expect(points.every((point) => 'value' in point)).toBe(true);
    // Gaps before the service was READY and after now, the buckets with data (500 m) in between.
    const gaps = points.filter((point) => point.value === null);
    const withData = points.flatMap((point, index) => (point.value === null ? [] : [index]));
    expect(gaps.length).toBeGreaterThan(30);
    expect(points[0]!.value).toBeNull();
    expect(points.at(-1)!.value).toBeNull();
    expect(withData.length).toBeGreaterThanOrEqual(20);
    expect(withData.every((index, i) => i === 0 || index === withData[i - 1]! + 1)).toBe(true);
    expect(withData.every((index) => points[index]!.value === 500)).toBe(true);
    const client = cloudApiClient(current);
    try {
      const read = await client.service.metricsSeries({
        project_id: current.project.id,
        service_id: created.body.service_id!,
        name,
        ...hour,
      });
      expect(read).toEqual([{ labels: { role: 'primary', ordinal: '0' }, data: expect.any(Array) }]);
      const readPoints = read[0]!.data!;
      expect(readPoints.map((point) => point.time)).toEqual(points.map((point) => point.time));
      expect(readPoints.filter((point) => point.value === undefined)).toHaveLength(gaps.length);
      expect(readPoints.every((point) => !('value' in point) || typeof point.value === 'number')).toBe(true);
    } finally {
      await client.close();
    }
  } finally {
    await current.close();
  }
});
