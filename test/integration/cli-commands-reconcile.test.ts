// `tideline reconcile` end to end on a dev stack (Temporal dev server, local cloud, in-process
// worker with policies): three PROD services, one lacking an HA replica and one a pooler —
// `tideline drift` lists exactly those two and exits 1; `reconcile --plan` shows the two repair
// runs and starts nothing; `reconcile` repairs both through the shipped runbooks (enable-ha,
// enable-pooler) and `tideline drift` then exits 0. A repair the worker's policy denies is
// reported with its code and reason, and its service is left as it was. Two reconciles at once
// on one drifted service start one repair run between them (one setHA call), and both report it.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonOutput, runTideline, type CliResult } from '../helpers/cli-process';
import { publicKeyText } from '../../activities/approval-keys';
import { cloudWorkerEnv } from '../helpers/local-cloud';
import { compile } from '../helpers/policy-fixtures';
import { getService, idOf, seedService } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { buildDist, REPO_ROOT, testKeyRing } from '../helpers/worker-process';

const STATE = path.join(REPO_ROOT, 'test', 'fixtures', 'state', 'prod-fleet.state.yaml');
const HA = { replica_count: 1, sync_replica_count: 0 };

interface ReconcileJson {
  ok: boolean;
  drift: boolean;
  clean?: boolean;
  plan: { repairs: { runbook: string; service: { name: string }; rules: string[]; inputs: object }[] };
  runs?: { service: { name: string }; workflowId: string; outcome: { kind: string; code?: string } }[];
}

/** Bob starts the repairs, signed: a policy approval asks for a starter the worker knows. */
const bob = generateKeyPairSync('ed25519');
let stack: RunbookStack;
let dir: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  await buildDist();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-reconcile-'));
  stack = await startRunbookStack(
    { timeScale: 0.05 },
    {
      keyRing: testKeyRing,
      governance: compile({
        policies: [
          {
            name: 'ledger-pooler-by-dba',
            when: "step.action == 'service.enablePooler' && target.name == 'ledger'",
            effect: 'deny',
            message: "the ledger's pooler is changed by the DBA team only",
          },
          {
            name: 'vault-pooler-approved',
            when: "step.action == 'service.enablePooler' && target.name == 'vault'",
            effect: 'require-approval',
            approvals: { group: 'dba', count: 1 },
          },
        ],
      }),
      approvals: {
        keys: new Map([['bob', [publicKeyText(bob.publicKey)]]]),
        groups: new Map([['dba', ['alice']]]),
      },
    },
  );
  const seeded = await Promise.all([
    seedService(stack, { name: 'orders', environment: 'PROD', pooler: true, ha: HA }),
    seedService(stack, { name: 'billing', environment: 'PROD', pooler: true }),
    seedService(stack, { name: 'search', environment: 'PROD', ha: HA }),
    seedService(stack, { name: 'ledger', ha: HA }),
    seedService(stack, { name: 'vault', ha: HA }),
  ]);
  for (const service of seeded) ids[service.name!] = idOf(service);
}, 240_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await stack?.close();
});

function tideline(...args: string[]): Promise<CliResult> {
  return runTideline([...args, '--address', stack.server.address, '--task-queue', stack.taskQueue], {
    env: cloudWorkerEnv(stack.cloud),
    timeoutMs: 180_000,
  });
}

/** The changes the local cloud was asked for (everything but reads) since the last reset. */
function changesAsked(): string[] {
  return Object.keys(stack.cloud.cloud.stats().byAction).filter((action) => !/\.(get|list)$/.test(action));
}

async function runsOnTaskQueue(): Promise<number> {
  let count = 0;
  for await (const run of stack.client.workflow.list({ query: `TaskQueue = '${stack.taskQueue}'` })) {
    if (run.type === 'runbookWorkflow') count++;
  }
  return count;
}

test('drift lists exactly the two that drifted; --plan shows their repairs and starts nothing', async () => {
  const drift = await tideline('drift', STATE);
  expect({ code: drift.code, stderr: drift.stderr }).toEqual({ code: 1, stderr: '' });
  expect(drift.stdout).toContain(`✗ billing (${ids.billing}) breaks prod-has-ha [error]`);
  expect(drift.stdout).toContain(`! search (${ids.search}) breaks prod-has-pooler [warning]`);
  expect(drift.stdout).not.toMatch(/orders|ledger|vault/);

  stack.cloud.cloud.resetStats();
  const plan = await tideline('reconcile', STATE, '--plan');
  expect({ code: plan.code, stderr: plan.stderr }).toEqual({ code: 1, stderr: '' });
  expect(plan.stdout).toContain(
    `→ ../../../runbooks/enable-ha.yaml for billing (${ids.billing}) (repairs prod-has-ha)`,
  );
  expect(plan.stdout).toContain(
    `→ ../../../runbooks/enable-pooler.yaml for search (${ids.search}) (repairs prod-has-pooler)`,
  );
  expect(plan.stdout).toContain(`inputs: project_id=${stack.projectId} service_id=${ids.search}`);
  expect(plan.stdout).toMatch(/^would start 2 repair runs$/m);

  const json = jsonOutput<ReconcileJson>(await tideline('reconcile', STATE, '--plan', '--json'));
  expect(json.plan.repairs.map((r) => [r.service.name, r.rules])).toEqual([
    ['billing', ['prod-has-ha']],
    ['search', ['prod-has-pooler']],
  ]);
  expect(json.plan.repairs[0]?.inputs).toEqual({
    project_id: stack.projectId,
    service_id: ids.billing,
    replica_count: 1,
    sync_replica_count: 0,
    ready_timeout: '30m',
  });
  expect(changesAsked()).toEqual([]);
  expect(await runsOnTaskQueue()).toBe(0);
}, 180_000);

test('reconcile repairs both through the shipped runbooks, and drift is clean after', async () => {
  const result = await tideline('reconcile', STATE);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toMatch(
    /^started enable-ha for billing as run repair-prod-fleet-billing-[0-9a-f]{16}-1$/m,
  );
  expect(result.stdout).toMatch(
    /^started enable-pooler for search as run repair-prod-fleet-search-[0-9a-f]{16}-1$/m,
  );
  expect(result.stdout).toMatch(/^✓ \.\.\/\.\.\/\.\.\/runbooks\/enable-ha\.yaml for billing .*: succeeded$/m);
  expect(result.stdout).toMatch(
    /^✓ \.\.\/\.\.\/\.\.\/runbooks\/enable-pooler\.yaml for search .*: succeeded$/m,
  );
  expect(result.stdout).toMatch(/^after 2 of 2 repair runs succeeded:\n✓ no drift: /m);

  expect((await getService(stack, ids.billing!)).ha_replicas?.replica_count).toBe(1);
  expect((await getService(stack, ids.search!)).connection_pooler?.endpoint?.host).toBeDefined();
  const drift = await tideline('drift', STATE);
  expect({ code: drift.code, stderr: drift.stderr }).toEqual({ code: 0, stderr: '' });
  expect(drift.stdout).toMatch(/^✓ no drift: 2 rules over 6 service checks/m);
}, 240_000);

/** A state file that wants a pooler on the service `name`, repaired by enable-pooler. */
function poolerState(name: string): string {
  const file = path.join(dir, `${name}.state.yaml`);
  writeFileSync(
    file,
    `apiVersion: tideline/v1
kind: State
name: ${name}
rules:
  - name: ${name}-has-pooler
    select: { name: ${name} }
    expect: has(service.connection_pooler) && has(service.connection_pooler.endpoint)
    repair:
      runbook: ${path.join(REPO_ROOT, 'runbooks', 'enable-pooler.yaml')}
      with: { project_id: '\${{ project_id }}', service_id: '\${{ service.service_id }}' }
`,
  );
  return file;
}

test("a repair the worker's policy denies is reported with its code and reason; the service is unchanged", async () => {
  const file = poolerState('ledger');
  stack.cloud.cloud.resetStats();
  const result = await tideline('reconcile', file, '--json');
  expect(result.code).toBe(1);
  const json = jsonOutput<ReconcileJson>(result);
  expect(json).toMatchObject({ ok: true, drift: true, clean: false });
  expect(json.runs?.map((run) => [run.service.name, run.outcome])).toEqual([
    [
      'ledger',
      {
        kind: 'refused',
        code: 'POLICY_DENIED',
        stepKey: 'pooler',
        reason: "policy ledger-pooler-by-dba: the ledger's pooler is changed by the DBA team only",
      },
    ],
  ]);
  expect(changesAsked()).toEqual([]);
  const ledger = await getService(stack, ids.ledger!);
  expect([ledger.status, ledger.connection_pooler?.endpoint]).toEqual(['READY', undefined]);

  const text = await tideline('reconcile', file);
  expect(text.code).toBe(1);
  expect(text.stdout).toMatch(
    /^✗ \S+enable-pooler\.yaml for ledger \(\S+\) \(run repair-ledger-ledger-[0-9a-f]{16}-2\): refused by the worker at step pooler \[POLICY_DENIED\]: policy ledger-pooler-by-dba: .* \(rule ledger-has-pooler\)$/m,
  );
  expect(text.stdout).toMatch(/^after 0 of 1 repair run succeeded:$/m);
  expect(text.stdout).toContain(`✗ ledger (${ids.ledger}) breaks ledger-has-pooler [error]`);
}, 240_000);

test('a repair that waits for an approval is reported with the command to give it, and not waited for', async () => {
  const key = path.join(dir, 'bob.pem');
  writeFileSync(key, bob.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  stack.cloud.cloud.resetStats();
  const result = await tideline('reconcile', poolerState('vault'), '--by', 'bob', '--key', key);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 1, stderr: '' });
  const id =
    /\(run (repair-vault-vault-[0-9a-f]{16}-1)\): waiting for approval at step (\S+): policy vault-pooler-approved/.exec(
      result.stdout,
    );
  expect(id).not.toBeNull();
  const [, workflowId, stepKey] = id as unknown as [string, string, string];
  expect(result.stdout).toMatch(
    new RegExp(
      `^ +approve: .*tideline\\S* approve ${workflowId} --step ${stepKey.replaceAll('.', '\\.')} `,
      'm',
    ),
  );
  expect(result.stdout).toContain(`✗ vault (${ids.vault}) breaks vault-has-pooler [error]`);
  expect(changesAsked()).toEqual([]);
  const run = await stack.client.workflow.getHandle(workflowId).describe();
  expect(run.status.name).toBe('RUNNING');
  await stack.client.workflow.getHandle(workflowId).cancel();
}, 240_000);

/** A state file that wants an HA replica on the service `name`, repaired by enable-ha. */
function haState(name: string): string {
  const file = path.join(dir, `${name}.state.yaml`);
  writeFileSync(
    file,
    `apiVersion: tideline/v1
kind: State
name: ${name}
rules:
  - name: ${name}-has-ha
    select: { name: ${name} }
    expect: has(service.ha_replicas) && has(service.ha_replicas.replica_count) && service.ha_replicas.replica_count >= 1
    repair:
      runbook: ${path.join(REPO_ROOT, 'runbooks', 'enable-ha.yaml')}
      with: { project_id: '\${{ project_id }}', service_id: '\${{ service.service_id }}' }
`,
  );
  return file;
}

/** How many calls of `action` the local cloud has answered, through its control API. */
async function callsOf(action: string): Promise<number> {
  const response = await fetch(`${stack.cloud.controlUrl}/stats`, {
    headers: { authorization: stack.cloud.controlAuthorization },
  });
  const stats = (await response.json()) as { byAction: Record<string, { total: number }> };
  return stats.byAction[action]?.total ?? 0;
}

test('two reconciles at once repair one drifted PROD service once, and both report that one run', async () => {
  const payments = await seedService(stack, { name: 'payments', environment: 'PROD', pooler: true });
  const file = haState('payments');
  const before = await callsOf('service.setHA');
  const [first, second] = await Promise.all([tideline('reconcile', file), tideline('reconcile', file)]);
  for (const result of [first, second])
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect((await callsOf('service.setHA')) - before).toBe(1);
  expect((await getService(stack, idOf(payments))).ha_replicas?.replica_count).toBe(1);

  // The one run, by its id derived from the drift: one reconcile started it, the other joined it.
  const runOf = (stdout: string) => /\(run (repair-payments-payments-[0-9a-f]{16}-1)[,)]/.exec(stdout)?.[1];
  const workflowId = runOf(first.stdout);
  expect(workflowId).toBeDefined();
  expect(runOf(second.stdout)).toBe(workflowId);
  const said = [first.stdout, second.stdout];
  expect(
    said.filter((out) => out.includes(`started enable-ha for payments as run ${workflowId}`)),
  ).toHaveLength(1);
  expect(
    said.filter((out) =>
      out.includes(
        `enable-ha for payments is already being repaired (or was just repaired) by run ${workflowId}`,
      ),
    ),
  ).toHaveLength(1);
  for (const out of said) expect(out).toMatch(/^✓ \S+enable-ha\.yaml for payments .*: succeeded$/m);
  expect(await stack.client.workflow.getHandle(workflowId!).describe()).toMatchObject({
    status: { name: 'COMPLETED' },
  });

  // A reconcile after the repair sees no drift and starts nothing.
  const again = await tideline('reconcile', file);
  expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
  expect(again.stdout).toMatch(/^nothing to start: 0 repair runs$/m);
  expect((await callsOf('service.setHA')) - before).toBe(1);
}, 300_000);
