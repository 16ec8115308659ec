// `tideline plan` with a worker configuration that has policies, against a real local cloud over
// HTTP: the plan reads the services the changing steps name (service.get, nothing else) and shows
// the rules the worker would apply — for runbooks/resize-with-rollback.yaml on a PROD service the
// deny of a resize above 4 CPUs and the freeze in force with its opening time; on a DEV service
// none. Without policies in the configuration the plan is as before and calls nothing.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PlanPolicies } from '../../cli/plan/plan-policies';
import { formatZoned } from '../../dsl/zoned-time';
import { jsonOutput, runTideline } from '../helpers/cli-process';
import { startConformanceCloud, type ConformanceCloud } from '../helpers/api-conformance-fixtures';
import { buildDist } from '../helpers/worker-process';

const RUNBOOK = path.join('runbooks', 'resize-with-rollback.yaml');

let fx: ConformanceCloud;
let dir: string;
let prodId: string;
let devId: string;
/** When the freeze ends: a whole minute about three days from now. */
let freezeEnds: Date;

function writeConfig(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

beforeAll(async () => {
  await buildDist();
  fx = await startConformanceCloud();
  const project_id = fx.projectId;
  prodId = (await fx.client.service.create({ project_id, name: 'orders', environment_tag: 'PROD' }))
    .service_id!;
  devId = (await fx.client.service.create({ project_id, name: 'scratch', environment_tag: 'DEV' }))
    .service_id!;
  fx.settle();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-plan-policies-'));
  const now = Date.now();
  freezeEnds = new Date(Math.ceil((now + 3 * 86_400_000) / 60_000) * 60_000);
  writeConfig(
    'worker.yaml',
    `calendars:
  release-freeze:
    kind: freeze
    timezone: Europe/Berlin
    from: '${new Date(now - 3_600_000).toISOString()}'
    until: '${freezeEnds.toISOString()}'
policies:
  - name: unsigned-start
    when: '!starter.verified'
    effect: warn
    message: The start is not signed.
  - name: prod-resize-needs-dba
    when: "step.action == 'service.resize' && target.environment == 'PROD' && int(step.with.cpu_millis) > 4000"
    unless: "'dba' in starter.groups"
    effect: deny
    message: Only group:dba may resize a PROD service above 4 CPUs.
  - name: prod-freeze
    when: "target.environment == 'PROD'"
    effect: window
    calendar: release-freeze
    outside: wait
`,
  );
  writeConfig('plain.yaml', 'taskQueue: tideline\n');
}, 240_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fx?.close();
});

/** The Cloud API as a worker has it, and the worker configuration file with the policies. */
function env(config = 'worker.yaml'): NodeJS.ProcessEnv {
  return {
    TIDELINE_CONFIG: path.join(dir, config),
    TIDELINE_CLOUD_URL: fx.tc.url,
    TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
    TIDELINE_CLOUD_PROJECT_ID: fx.projectId,
    TIDELINE_CLOUD_ACCESS_KEY: fx.tc.project.access_key,
    TIDELINE_CLOUD_SECRET_KEY: fx.tc.project.secret_key,
  };
}

const planArgs = (serviceId: string, ...extra: string[]) => [
  'plan',
  RUNBOOK,
  '-i',
  `project_id=${fx.projectId}`,
  '-i',
  `service_id=${serviceId}`,
  '-i',
  'cpu_millis=8000',
  '--by',
  'alice',
  ...extra,
];

/** The requests the local cloud answered while `run` ran, by action. */
async function requestsDuring(run: () => Promise<void>): Promise<[string, number][]> {
  const totals = async () =>
    Object.fromEntries(
      Object.entries((await fx.stats()).byAction).map(([action, counts]) => [action, counts.total]),
    );
  const before = await totals();
  await run();
  const after = await totals();
  return Object.entries(after)
    .map(([action, total]): [string, number] => [action, total - (before[action] ?? 0)])
    .filter(([, delta]) => delta !== 0);
}

test('a PROD service: the deny and the freeze with its opening time, reading only service.get', async () => {
  let stdout = '';
  const made = await requestsDuring(async () => {
    const result = await runTideline(planArgs(prodId), { env: env() });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    stdout = result.stdout;
  });
  expect(made).toEqual([['service.get', 1]]);
  const opens = freezeEnds.toISOString();
  const local = formatZoned('Europe/Berlin', freezeEnds.getTime());
  const lines = stdout.split('\n');
  expect(lines[0]).toMatch(/^Plan for resize-with-rollback \(\S+\) — only service\.get was called$/);
  expect(stdout).toContain(
    '  starter: alice, as claimed — the plan verifies no key, so the rules see an unverified starter in no group',
  );
  expect(stdout).toContain('    warn unsigned-start: The start is not signed. (only recorded)');
  const at = lines.findIndex((line) => line.includes(`policies (target ${prodId} "orders" (PROD, READY`));
  expect(at).toBeGreaterThan(0);
  expect(lines.slice(at + 1, at + 5)).toEqual([
    '         deny prod-resize-needs-dba: Only group:dba may resize a PROD service above 4 CPUs.',
    `         window prod-freeze: freeze release-freeze is in force until ${local} (Europe/Berlin): the change waits`,
    `           freeze release-freeze: closed, opens ${opens} (${local} Europe/Berlin); the change waits until then`,
    '         → the run would fail here (POLICY_DENIED)',
  ]);
});

test('the JSON plan has the same in `policies`', async () => {
  const result = await runTideline(planArgs(prodId, '--json'), { env: env() });
  expect(result.code).toBe(0);
  const { policies } = jsonOutput<{ policies: PlanPolicies }>(result);
  expect(policies.configFile).toBe(path.join(dir, 'worker.yaml'));
  expect(policies.starter).toEqual({ name: 'alice', verified: false, groups: [] });
  expect(policies.start.decisions.map((decision) => decision.rule)).toEqual(['unsigned-start']);
  const resize = policies.steps.find((step) => step.key === 'resize');
  expect(resize).toMatchObject({
    action: 'service.resize',
    target: { source: 'read', service: { id: prodId, name: 'orders', environment: 'PROD' } },
    outcome: 'denied',
  });
  expect(resize?.decisions).toMatchObject([
    { rule: 'prod-resize-needs-dba', effect: 'deny' },
    {
      rule: 'prod-freeze',
      effect: 'window',
      calendarKind: 'freeze',
      open: false,
      outside: 'wait',
      opensAt: freezeEnds.toISOString(),
      opensAtLocal: formatZoned('Europe/Berlin', freezeEnds.getTime()),
    },
  ]);
});

test('a DEV service: no step rule applies', async () => {
  const result = await runTideline(planArgs(devId), { env: env() });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toContain(`policies: no rule applies (target ${devId} "scratch" (DEV, READY`);
  expect(result.stdout).not.toMatch(/deny|prod-freeze|POLICY_DENIED/);
  const json = jsonOutput<{ policies: PlanPolicies }>(
    await runTideline(planArgs(devId, '--json'), { env: env() }),
  );
  expect(json.policies.steps.map((step) => [step.key, step.decisions.length])).toEqual([
    ['resize', 0],
    ['resize/undo.resize_back', 0],
  ]);
});

test('a configuration without policies: the plan as before, nothing called', async () => {
  let stdout = '';
  const made = await requestsDuring(async () => {
    const result = await runTideline(planArgs(prodId, '--json'), { env: env('plain.yaml') });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    stdout = result.stdout;
  });
  expect(made).toEqual([]);
  expect(JSON.parse(stdout)).not.toHaveProperty('policies');
});

test('a client-only configuration file (no cloud, no policies): the plan as before', async () => {
  const result = await runTideline(planArgs(prodId), {
    env: { TIDELINE_CONFIG: path.join(dir, 'plain.yaml') },
  });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout.split('\n')[0]).toMatch(/— nothing is called$/);
  expect(result.stdout).not.toContain('policies');
});

test('policies without Cloud API settings: shown, each target unread, rules reading it fail closed', async () => {
  const result = await runTideline(planArgs(prodId), {
    env: { TIDELINE_CONFIG: path.join(dir, 'worker.yaml') },
  });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout.split('\n')[0]).toMatch(/— nothing is called$/);
  expect(result.stdout).toContain(
    `policies (target ${prodId} could not be read (no Cloud API settings to read it with: cloud.baseUrl: required`,
  );
  expect(result.stdout).toMatch(/deny prod-resize-needs-dba: .*`when` could not be evaluated/);
});

test('policies that do not compile: a usage error naming the problem, as the worker would refuse them', async () => {
  const file = writeConfig('bad.yaml', "policies:\n  - { name: Bad, when: 'true', effect: deny }\n");
  const result = await runTideline(planArgs(prodId), { env: { TIDELINE_CONFIG: file } });
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(
    /^tideline: invalid policies in \S+bad\.yaml: policies\[0\]\.name: must be lowercase/,
  );
});
