// Hold actions are judged for the person acting, against the policies the worker holds now. A
// worker process runs from a configuration file (catalogue: runbooks/resize-with-rollback.yaml;
// keys of alice and bob made with `tideline keys create`; group dba: [alice]) on a real dev server
// and the local cloud. alice (dba) starts a resize that holds at its first step; bob (not dba)
// retries it at another PROD service with 32 CPUs, through the CLI and as a raw signed update: both
// are refused with POLICY_DENIED before anything changes, and `tideline audit` shows it; alice's
// own retry goes through. A run admitted by a worker without step rules, retried after the worker
// restarted with a freeze: the PROD resize waits for the window.
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { signHoldAction } from '../../activities/approval-signatures';
import { holdActionChanges } from '../../contract/approval-messages';
import { progressQuery, retryUpdate, type RetryRequest } from '../../contract/run-messages';
import { jsonOutput, runTideline, type CliResult } from '../helpers/cli-process';
import type { GuardedProcess } from '../helpers/guarded-process';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { getService, idOf, pollUntil, seedService } from '../helpers/runbook-fixtures';
import type { RunbookStack } from '../helpers/runbook-stack';
import { REPO_ROOT, startWorkerProcess } from '../helpers/worker-process';

const RUNBOOK = path.join(REPO_ROOT, 'runbooks', 'resize-with-rollback.yaml');
const taskQueue = `hold-actors-${randomBytes(4).toString('hex')}`;
const YEAR_MS = 365 * 86_400_000;

let stack: ProcessWorkerStack;
let home: string;
let worker: { config: string; process: GuardedProcess } | undefined;
const publicKeys = new Map<string, string>();

function tideline(...args: string[]): Promise<CliResult> {
  return runTideline([...args, '--address', stack.server.address, '--task-queue', taskQueue], {
    env: { HOME: home },
  });
}

/** The worker's configuration file: catalogue, keys, group dba: [alice], and `policies`. */
function writeConfig(name: string, policies: string): string {
  const file = path.join(home, name);
  const keys = [...publicKeys].map(([who, key]) => `    ${who}: '${key}'`).join('\n');
  writeFileSync(
    file,
    `catalog:\n  runbooks: ['${RUNBOOK}']\napprovals:\n  keys:\n${keys}\n  groups:\n    dba: [alice]\n${policies}`,
    { mode: 0o600 },
  );
  return file;
}

/** No rule evaluated before steps: runs are admitted with `checksSteps` false. */
const START_ONLY = `policies:
  - name: unsigned-start
    when: '!starter.verified'
    effect: warn
`;
const STEP_RULES = `calendars:
  freeze:
    kind: freeze
    timezone: UTC
    from: '${new Date(Date.now() - 3_600_000).toISOString()}'
    until: '${new Date(Date.now() + YEAR_MS).toISOString()}'
policies:
  - name: prod-resize-needs-dba
    when: "step.action == 'service.resize' && target.environment == 'PROD' && int(step.with.cpu_millis) > 4000"
    unless: "'dba' in starter.groups"
    effect: deny
    message: Only group:dba may resize a PROD service above 4 CPUs.
  - name: frozen-service
    when: "target.name == 'frozen-orders'"
    effect: window
    calendar: freeze
    outside: wait
`;

/** Runs the worker with `config`, stopping the one that runs with another. */
async function workerWith(config: string): Promise<void> {
  if (worker?.config === config) return;
  await worker?.process.stop();
  worker = {
    config,
    process: await startWorkerProcess({ env: { ...stack.workerEnv(), TIDELINE_CONFIG: config } }),
  };
}

/** seedService's view of this stack (it uses the API client and the project only). */
const seeding = () => ({ api: stack.api, projectId: stack.cloud.project.id }) as unknown as RunbookStack;

/** alice starts a resize of a service that does not exist (its own id: runs lock it): it holds at `current`. */
async function heldResize(id: string, missing: string): Promise<void> {
  const run = await tideline(
    'run',
    RUNBOOK,
    '-i',
    `project_id=${stack.cloud.project.id}`,
    '-i',
    `service_id=${missing}`,
    '-i',
    'cpu_millis=2000',
    '--on-failure',
    'hold',
    '--id',
    id,
    '--by',
    'alice',
  );
  expect({ code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({
    code: 5,
    stderr: '',
    stdout: expect.stringContaining('is held at a failed step'),
  });
}

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'tideline-hold-actors-'));
  stack = await startProcessWorkerStack({ taskQueue, cloud: { timeScale: 0.05 } });
  for (const who of ['alice', 'bob']) {
    const created = await runTideline(['keys', 'create', who], { env: { HOME: home } });
    const line = /^\s*(\w+): '?(ed25519:[^'\s]+)'?\s*$/m.exec(created.stdout);
    expect(line?.[1]).toBe(who);
    publicKeys.set(who, line![2]!);
  }
}, 240_000);
afterAll(async () => {
  await worker?.process.stop();
  await stack?.close();
  rmSync(home, { recursive: true, force: true });
});

test("bob's signed retry of alice's PROD resize is judged for bob: refused (CLI and raw update), alice's goes through", async () => {
  await workerWith(writeConfig('steps.yaml', STEP_RULES));
  const prod = await seedService(seeding(), { name: 'orders', environment: 'PROD' });
  const id = `resize-held-${Date.now()}`;
  await heldResize(id, 'zzzzzzzzza');

  const retargeted = ['-i', `service_id=${idOf(prod)}`, '-i', 'cpu_millis=32000'];
  const cli = await tideline('retry', id, '--step', 'current', ...retargeted, '--by', 'bob');
  expect(cli.code).toBe(1);
  expect(cli.stderr).toMatch(
    /refused this retry: policy prod-resize-needs-dba \(judged for bob, step resize\)/,
  );

  // The request an attacker builds: bob's own key, signed for this run.
  const handle = stack.client.workflow.getHandle(id);
  const runId = (await handle.describe()).runId;
  const request: RetryRequest = {
    step: 'current',
    by: 'bob',
    inputs: { service_id: idOf(prod), cpu_millis: '32000' },
  };
  const bobKey = createPrivateKey(readFileSync(path.join(home, '.tideline', 'approval-keys', 'bob.pem')));
  const raw = await handle.executeUpdate(retryUpdate, {
    args: [
      {
        ...request,
        signature: signHoldAction(bobKey, {
          workflowId: id,
          runId,
          action: 'retry',
          step: 'current',
          by: 'bob',
          changes: holdActionChanges('retry', request),
        }),
      },
    ],
  });
  expect(raw.refused?.code).toBe('POLICY_DENIED');
  expect((await handle.query(progressQuery)).held?.map((h) => h.stepKey)).toEqual(['current']);
  expect((await getService(seeding(), idOf(prod))).resources?.[0]?.spec?.cpu_millis).toBe(1000);

  const audit = jsonOutput<{
    actions: { by: string; refused?: { code: string } }[];
    policies: { rule: string; effect: string; stepKey: string }[];
  }>(await tideline('--json', 'audit', id));
  expect(audit.actions.map((a) => [a.by, a.refused?.code])).toEqual([
    ['bob', 'POLICY_DENIED'],
    ['bob', 'POLICY_DENIED'],
  ]);
  expect(audit.policies).toContainEqual(
    expect.objectContaining({ rule: 'prod-resize-needs-dba', effect: 'deny', stepKey: 'resize' }),
  );
  const text = await tideline('audit', id);
  expect(text.stdout).toMatch(
    /current retry by bob: refused POLICY_DENIED: policy prod-resize-needs-dba \(judged for bob, step resize\)/,
  );

  // The same retry by alice (dba) is hers to make.
  const allowed = await tideline('retry', id, '--step', 'current', ...retargeted, '--by', 'alice');
  expect({ code: allowed.code, stderr: allowed.stderr }).toEqual({ code: 0, stderr: '' });
  expect((await tideline('status', id)).code).toBe(0);
  expect((await getService(seeding(), idOf(prod))).resources?.[0]?.spec?.cpu_millis).toBe(32000);
}, 240_000);

test('a run admitted without step rules, retried after the worker gained a freeze, waits for the window', async () => {
  const frozen = await seedService(seeding(), { name: 'frozen-orders', environment: 'PROD' });
  await workerWith(writeConfig('start-only.yaml', START_ONLY));
  const id = `resize-frozen-${Date.now()}`;
  await heldResize(id, 'zzzzzzzzzb');
  const handle = stack.client.workflow.getHandle(id);
  expect((await handle.query(progressQuery)).admission?.checksSteps).toBe(false);

  await workerWith(writeConfig('steps.yaml', STEP_RULES));
  const retry = await tideline(
    'retry',
    id,
    '--step',
    'current',
    '-i',
    `service_id=${idOf(frozen)}`,
    '--by',
    'alice',
  );
  expect({ code: retry.code, stderr: retry.stderr }).toEqual({ code: 0, stderr: '' });
  const waiting = await pollUntil(
    'the resize to wait for its change window',
    () => handle.query(progressQuery),
    (p) => p.windowWait !== undefined,
    60_000,
  );
  expect(waiting.windowWait).toMatchObject({ stepKey: 'resize', rule: 'frozen-service', calendar: 'freeze' });
  expect(waiting.policies?.map((p) => [p.rule, p.effect, p.stepKey])).toContainEqual([
    'frozen-service',
    'window',
    'resize',
  ]);
  expect((await getService(seeding(), idOf(frozen))).resources?.[0]?.spec?.cpu_millis).toBe(1000);
  await handle.terminate('test over');
}, 240_000);
