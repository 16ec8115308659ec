// A test case's local cloud (rehearsal/case-cloud.ts) over real HTTP: the starting state
// is there, in the states asked for, before the run; faults apply only once armed, `nth` from the
// operation's N-th request on and `times` as often as asked; calls count only what came after
// arming, and disarming removes the faults (and, given the run's end, stops the cloud's clock
// there); a metricAnomaly fault reaches the metrics it names.
import { startCaseCloud, type CaseCloud } from '../../rehearsal/case-cloud';
import { TestCase } from '../../rehearsal/test-file-schema';

const credentials = { accessKey: 'ak-case-cloud', secretKey: 'sk-case-cloud-long-enough' };

function testCase(fields: Record<string, unknown>): TestCase {
  return TestCase.parse({ name: 'x', runbook: 'x.yaml', expect: { status: 'succeeded' }, ...fields });
}

let cloud: CaseCloud | undefined;
afterEach(async () => {
  await cloud?.close();
  cloud = undefined;
});

test('holds the starting state, in the states asked for', async () => {
  cloud = await startCaseCloud(
    testCase({
      cloud: {
        vpcs: [{ name: 'main' }],
        services: [
          { name: 'shop', environment: 'PROD', vpc: 'main', cpu_millis: '2000' },
          { name: 'idle', status: 'PAUSED' },
        ],
      },
    }),
    credentials,
  );
  const project_id = cloud.ids.projectId;
  expect(project_id).toMatch(/^[a-z0-9]{10}$/);
  const vpcId = cloud.ids.vpcs.get('main');
  const shop = await cloud.api.service.get({ project_id, service_id: cloud.ids.services.get('shop') ?? '' });
  expect(shop).toMatchObject({
    name: 'shop',
    status: 'READY',
    metadata: { environment: 'PROD' },
    vpc_endpoint: { vpc_id: vpcId },
  });
  expect(shop.resources?.[0]?.spec?.cpu_millis).toBe(2000);
  const idle = await cloud.api.service.get({ project_id, service_id: cloud.ids.services.get('idle') ?? '' });
  expect(idle).toMatchObject({ name: 'idle', status: 'PAUSED', metadata: { environment: 'DEV' } });
});

test('faults wait for arming; nth and times pick the requests; calls count from arming on', async () => {
  cloud = await startCaseCloud(
    testCase({
      faults: [
        { operation: 'vpc.list', kind: 'error', status: 503, nth: 3, times: 2 },
        { operation: 'vpc.list', kind: 'error', status: 500, nth: 6 },
        { operation: 'project.list', kind: 'error', status: 502, times: 1 },
      ],
    }),
    credentials,
  );
  const project_id = cloud.ids.projectId;
  const statusOf = (work: Promise<unknown>) =>
    work.then(
      () => 200,
      (error: unknown) => (error as { status?: number }).status ?? String(error),
    );
  expect(await statusOf(cloud.api.vpc.list({ project_id }))).toBe(200);
  cloud.arm();
  const answers: unknown[] = [];
  for (let i = 0; i < 5; i++) answers.push(await statusOf(cloud.api.vpc.list({ project_id })));
  expect(answers).toEqual([200, 200, 503, 503, 200]);
  expect(await statusOf(cloud.api.project.list({}))).toBe(502);
  expect(await statusOf(cloud.api.project.list({}))).toBe(200);
  const { calls, sequence } = cloud.disarm();
  expect(calls['vpc.list']?.total).toBe(5);
  expect(calls['project.list']?.total).toBe(2);
  expect(sequence).toEqual([...Array<string>(5).fill('vpc.list'), 'project.list', 'project.list']);
  // Disarmed: the end state is read without the faults.
  expect(await statusOf(cloud.api.vpc.list({ project_id }))).toBe(200);
  expect(await statusOf(cloud.api.vpc.list({ project_id }))).toBe(200);
});

test("a metricAnomaly fault pins the named service's CPU from its nth metrics read on", async () => {
  cloud = await startCaseCloud(
    testCase({
      cloud: { services: [{ name: 'web-01' }, { name: 'web-07' }] },
      faults: [
        { operation: 'service.metricsSeries', kind: 'metricAnomaly', service: 'web-07', value: 990, nth: 2 },
      ],
    }),
    credentials,
  );
  const project_id = cloud.ids.projectId;
  // The case's cloud runs ahead of the wall clock by the time it skipped: an hour's window from now
  // holds every bucket from the services' first READY to the cloud's now.
  const cpu = async (name: string) => {
    const read = await cloud!.api.service.metricsSeries({
      project_id,
      service_id: cloud!.ids.services.get(name) ?? '',
      name: 'timescale_cloud_system_cpu_usage_millicores',
      from: new Date(Date.now() - 60_000).toISOString(),
      to: new Date(Date.now() + 59 * 60_000).toISOString(),
    });
    // Buckets with data; the current dialect also sends those after now, as gaps without a value.
    const values = read[0]?.data?.flatMap((point) => (point.value === undefined ? [] : [point.value])) ?? [];
    expect(values.length).toBeGreaterThan(0);
    return values;
  };
  cloud.arm();
  expect(await cpu('web-07')).not.toContain(990);
  const pinned = await cpu('web-07');
  // The bucket in progress reads the anomaly; those that ended before it keep their values.
  expect(pinned.at(-1)).toBe(990);
  expect(pinned.slice(0, -1)).not.toContain(990);
  expect(await cpu('web-01')).not.toContain(990);
  cloud.disarm();
  expect(await cpu('web-07')).not.toContain(990);
});

test('notes every name that existed, and compares a password without any answer holding it', async () => {
  cloud = await startCaseCloud(testCase({ cloud: { services: [{ name: 'shop' }] } }), credentials);
  const project_id = cloud.ids.projectId;
  const service_id = cloud.ids.services.get('shop') ?? '';
  cloud.arm();
  const made = await cloud.api.service.create({ project_id, name: 'scratch', addons: ['time-series'] });
  await cloud.api.service.delete({ project_id, service_id: made.service_id ?? '' });
  const password = 'Rotated-Secret-4711';
  await cloud.api.service.updatePassword({ project_id, service_id, password });
  const answers = JSON.stringify(await cloud.api.service.list({ project_id }));
  expect(answers).not.toContain(password);
  expect(cloud.cloud.passwordMatches(service_id, password)).toBe(true);
  expect(cloud.cloud.passwordMatches(service_id, 'Previous-Secret-0815')).toBe(false);
  expect(cloud.cloud.passwordMatches('unknown', password)).toBeUndefined();
  cloud.disarm();
  expect([...cloud.existed().services].sort()).toEqual(['scratch', 'shop']);
  expect([...cloud.existed().vpcs]).toEqual([]);
});

test("disarmed with the run's end, the cloud reads as it was then: a change under way still is", async () => {
  // A resize takes 10 s on the case's clock: 100 ms here.
  cloud = await startCaseCloud(
    testCase({ cloud: { durations: { resize: '10s' }, services: [{ name: 'shop', cpu_millis: '1000' }] } }),
    credentials,
  );
  const project_id = cloud.ids.projectId;
  const service_id = cloud.ids.services.get('shop') ?? '';
  cloud.arm();
  const endedAt = Date.now();
  const resized = await cloud.api.service.resize({
    project_id,
    service_id,
    cpu_millis: '2000',
    memory_gbs: '8',
  });
  expect(resized).toBeDefined();
  cloud.disarm(endedAt);
  // Twice the resize's length in real time: a clock still going would read it READY by now.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const read = await cloud.api.service.get({ project_id, service_id });
  expect(read.status).toBe('CONFIGURING');
  expect(read.resources?.[0]?.spec?.cpu_millis).toBe(1000);
});
