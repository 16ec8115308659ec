// `tideline plan --resolve-targets` against a real local cloud over HTTP: the plan lists exactly
// the services a foreach over `targets` selects now (id, name, environment, status, region), with
// the Cloud API settings a worker uses (TIDELINE_CLOUD_*), and calls nothing but service.list.
// Without the option the plan shows the selector and calls nothing. The same runbook's
// `tideline test` cases prove a run touches exactly those services.
import path from 'node:path';
import { jsonOutput, runTideline } from '../helpers/cli-process';
import { startConformanceCloud, type ConformanceCloud } from '../helpers/api-conformance-fixtures';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const FIXTURES = path.join('test', 'fixtures', 'runbooks', 'targets');
const RUNBOOK = path.join(FIXTURES, 'stop-selected-services.yaml');

interface PlannedTarget {
  service_id: string;
  name: string;
  environment: string;
  status: string;
  region: string;
}
interface PlanJson {
  targetsResolved?: boolean;
  steps: {
    id: string;
    kind: string;
    targets?: { selector: Record<string, unknown>; services?: PlannedTarget[]; unresolved?: string };
  }[];
}

let fx: ConformanceCloud;
const ids: Record<string, string> = {};

beforeAll(async () => {
  await buildDist();
  fx = await startConformanceCloud();
  const project_id = fx.projectId;
  const create = async (
    name: string,
    extra: { region_code?: string; environment_tag?: 'DEV' | 'PROD' } = {},
  ) => {
    const created = await fx.client.service.create({ project_id, name, ...extra });
    ids[name] = created.service_id!;
  };
  await create('dev-api');
  await create('dev-eu', { region_code: 'eu-west-1' });
  await create('dev-idle');
  await create('dev-prod', { environment_tag: 'PROD' });
  await create('dev-reports');
  await create('ops-api');
  fx.settle();
  await fx.client.service.stop({ project_id, service_id: ids['dev-idle']! });
  const fork = await fx.client.service.fork({
    project_id,
    service_id: ids['dev-api']!,
    fork_strategy: 'NOW',
    name: 'dev-api-fork',
  });
  ids['dev-api-fork'] = fork.service_id!;
  await fx.client.replicaSet.create({
    project_id,
    service_id: ids['dev-reports']!,
    name: 'dev-reports-ro',
    nodes: 1,
    cpu_millis: 1000,
    memory_gbs: 4,
  });
  fx.settle();
}, 240_000);

afterAll(() => fx?.close());

function cloudEnv(): NodeJS.ProcessEnv {
  return {
    TIDELINE_CLOUD_URL: fx.tc.url,
    TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
    TIDELINE_CLOUD_PROJECT_ID: fx.projectId,
    TIDELINE_CLOUD_ACCESS_KEY: fx.tc.project.access_key,
    TIDELINE_CLOUD_SECRET_KEY: fx.tc.project.secret_key,
  };
}

const planArgs = (...extra: string[]) => [
  'plan',
  RUNBOOK,
  '-i',
  `project_id=${fx.projectId}`,
  '-i',
  'team=dev',
  ...extra,
];

test('lists the services the selector picks now, as JSON, calling only service.list', async () => {
  const before = await fx.stats();
  const result = await runTideline(planArgs('--resolve-targets', '--json'), { env: cloudEnv() });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const plan = jsonOutput<PlanJson>(result);
  expect(plan.targetsResolved).toBe(true);
  expect(plan.steps.map((step) => [step.kind, step.id])).toEqual([
    ['call', 'stop_each-targets'],
    ['foreach', 'stop_each'],
  ]);
  const targets = plan.steps[1]?.targets;
  expect(targets?.selector).toMatchObject({ project_id: fx.projectId, name: ['dev-*'], status: ['READY'] });
  // READY DEV primaries named dev-* without a read replica: not the PAUSED, PROD, fork, replica'd
  // or other team's services.
  expect(targets?.services).toEqual([
    { service_id: ids['dev-api'], name: 'dev-api', environment: 'DEV', status: 'READY', region: 'us-east-1' },
    { service_id: ids['dev-eu'], name: 'dev-eu', environment: 'DEV', status: 'READY', region: 'eu-west-1' },
  ]);
  const after = await fx.stats();
  const requests = (stats: typeof before) =>
    Object.fromEntries(Object.entries(stats.byAction).map(([action, counts]) => [action, counts.total]));
  const made = Object.entries(requests(after))
    .map(([action, total]) => [action, total - (requests(before)[action] ?? 0)])
    .filter(([, delta]) => delta !== 0);
  expect(made).toEqual([['service.list', 1]]);
});

test('an input changes the selection; the text plan shows the services in columns', async () => {
  const result = await runTideline(planArgs('-i', 'replicas=true', '--resolve-targets'), { env: cloudEnv() });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('— only service.list was called');
  expect(result.stdout).toMatch(
    /foreach service in the services of project \S+ where name dev-\*, .*hasReadReplicas true/,
  );
  const table = result.stdout.split('\n').filter((line) => line.includes(ids['dev-reports']!));
  expect(table).toEqual([expect.stringMatching(/^\s+\S+\s+dev-reports\s+DEV\s+READY\s+us-east-1$/)]);
  expect(result.stdout).toContain('targets now (1):');
});

test('without --resolve-targets the plan shows the selector and needs no cloud', async () => {
  const result = await runTideline(planArgs());
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('— nothing is called');
  expect(result.stdout).not.toContain('targets now');
  expect(result.stdout).toContain('where name dev-*, environment DEV, status READY, role primary');
});

test('--resolve-targets without Cloud API settings is a usage error, not a stack trace', async () => {
  const result = await runTideline(planArgs('--resolve-targets'));
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/TIDELINE_CLOUD_URL/);
  expect(result.stderr).not.toMatch(/\n\s+at /);
});

test('the runbook test cases: a run touches exactly the selected services', async () => {
  const result = await runTideline(['test', `${FIXTURES}/`], { cwd: REPO_ROOT, timeoutMs: 120_000 });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toMatch(/^3 passed/m);
}, 150_000);
