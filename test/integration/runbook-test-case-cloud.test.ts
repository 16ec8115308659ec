// A test case's local cloud (rehearsal/case-cloud.ts) over real HTTP: the starting state
// is there, in the states asked for, before the run; faults apply only once armed, `nth` from the
// operation's N-th request on and `times` as often as asked; calls count only what came after
// arming, and disarming removes the faults.
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
