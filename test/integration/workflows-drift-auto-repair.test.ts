// A drift watcher that repairs by itself, through a real worker (catalogue of the shipped
// runbooks, a policy, `drift.repairAs`), the local cloud and a real HTTP receiver. A PROD service
// losing its HA replica is repaired once through the shipped enable-ha runbook — a run started as
// the configured identity and verified by admission — and later checks see it clean and notify
// `drift-cleared` once; when it drifts again it is repaired again. A repair the worker's policy
// denies (it names the repair identity) leaves the service as it was, is reported with its code,
// and is not retried at the next checks. A watcher started raw, claiming in its input that a rule
// without `repair.auto` may be repaired, repairs nothing. Every wait is on the watcher's status or
// the posts received, never a sleep.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { publicKeyText } from '../../activities/approval-keys';
import { Secret } from '../../cloud/redact';
import {
  driftWatchStatusQuery,
  driftWatchWorkflowId,
  type DriftNotificationPayload,
  type DriftWatchInput,
  type DriftWatchStatus,
} from '../../contract/drift-watch-messages';
import { progressQuery } from '../../contract/run-messages';
import { DRIFT_WATCH_WORKFLOW_TYPE } from '../../contract/workflow-types';
import { loadCatalog } from '../../worker/catalog';
import { loadDriftStates } from '../../worker/drift-states';
import { runCliAgainst } from '../helpers/cli-in-process';
import { compile } from '../helpers/policy-fixtures';
import { getService, idOf, pollUntil, seedService, waitForService } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { REPO_ROOT, testKeyRing } from '../helpers/worker-process';

const RUNBOOKS = path.join(REPO_ROOT, 'runbooks');

/** A state `<prefix>-ha` whose rule wants an HA replica on PROD services named `<prefix>-*`. */
const haState = (prefix: string, auto: boolean) => `apiVersion: tideline/v1
kind: State
name: ${prefix}-ha
rules:
  - name: ${prefix}-has-ha
    select: { name: '${prefix}-*', environment: PROD }
    expect: has(service.ha_replicas) && has(service.ha_replicas.replica_count) && service.ha_replicas.replica_count >= 1
    repair:
      runbook: ${path.join(RUNBOOKS, 'enable-ha.yaml')}
      with: { project_id: '\${{ project_id }}', service_id: '\${{ service.service_id }}' }
      auto: ${auto}
`;

const REPAIRER = 'drift-bot';
const keys = generateKeyPairSync('ed25519', {
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

let receiver: WebhookReceiver;
let stack: RunbookStack;
let dir: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-drift-auto-repair-'));
  writeFileSync(path.join(dir, 'auto.state.yaml'), haState('auto', true));
  writeFileSync(path.join(dir, 'manual.state.yaml'), haState('manual', false));
  writeFileSync(path.join(dir, 'drift-bot.pem'), keys.privateKey, { mode: 0o600 });
  const approvalKeys = new Map([[REPAIRER, [publicKeyText(createPublicKey(keys.publicKey))]]]);
  const targets = new Map([
    ['drift-hook', { type: 'webhook' as const, url: new Secret(receiver.url('/drift')) }],
  ]);
  const problems: string[] = [];
  const catalog = loadCatalog({ runbooks: [RUNBOOKS] }, REPO_ROOT, problems);
  const drift = loadDriftStates(
    { states: ['.'], notify: ['drift-hook'], repairAs: { by: REPAIRER, key: 'drift-bot.pem' } },
    new Set(targets.keys()),
    dir,
    problems,
    approvalKeys,
  );
  expect(problems).toEqual([]);
  stack = await startRunbookStack(
    { timeScale: 0.05 },
    {
      keyRing: testKeyRing,
      catalog,
      approvals: { keys: approvalKeys, groups: new Map() },
      notifications: { targets, maxAttempts: 3, retryIntervalMs: 50 },
      governance: compile({
        policies: [
          {
            name: 'ledger-ha-by-people',
            when: `starter.name == '${REPAIRER}' && starter.verified && target.name == 'auto-ledger'`,
            effect: 'deny',
            message: "the ledger's HA is changed by people only",
          },
        ],
      }),
      ...(drift !== undefined && { drift }),
    },
  );
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const tideline = (args: string[]) =>
  runCliAgainst({ address: stack.server.address, taskQueue: stack.taskQueue }, args);

const posted = (event: string, serviceId: string) =>
  (receiver.accepted('/drift') as DriftNotificationPayload[]).filter(
    (p) =>
      p.event === event &&
      (p.findings.some((f) => f.service.id === serviceId) ||
        (p.repairs ?? []).some((r) => r.service.id === serviceId)),
  );

const watcher = (state: string) => stack.client.workflow.getHandle(driftWatchWorkflowId(state));
const statusOf = (state: string) => watcher(state).query(driftWatchStatusQuery);

/** Waits until `until` holds of the watcher's status, then for three more checks. */
async function thenSteady(state: string, what: string, until: (s: DriftWatchStatus) => boolean) {
  const reached = await pollUntil(what, () => statusOf(state), until, 90_000);
  await pollUntil(
    'three more checks',
    () => statusOf(state),
    (s) => s.checks >= reached.checks + 3,
    60_000,
  );
}

async function dropReplicas(service_id: string): Promise<void> {
  await stack.api.service.setHA({
    project_id: stack.projectId,
    service_id,
    replica_count: 0,
    sync_replica_count: 0,
  });
  await waitForService(stack, service_id, (s) => s.status === 'READY' && s.ha_replicas?.replica_count === 0);
}

const HA = { replica_count: 1, sync_replica_count: 0 };

test('repairs a drifted PROD service once through the shipped runbook, and again when it drifts again', async () => {
  const orders = idOf(await seedService(stack, { name: 'auto-orders', environment: 'PROD', ha: HA }));
  expect(await tideline(['drift-watch', 'start', 'auto-ha', '--every', '1s'])).toMatchObject({ code: 0 });
  await pollUntil(
    'two checks',
    () => statusOf('auto-ha'),
    (s) => s.checks >= 2,
    60_000,
  );

  await dropReplicas(orders);
  await thenSteady(
    'auto-ha',
    'the repair of auto-orders to succeed and its drift to clear',
    (s) =>
      s.repairs.some((r) => r.service.id === orders && r.outcome.kind === 'repaired') &&
      !s.findings.some((f) => f.service.id === orders),
  );
  expect((await getService(stack, orders)).ha_replicas?.replica_count).toBe(1);
  expect(posted('drift-appeared', orders)).toHaveLength(1);
  expect(posted('repair-started', orders)).toHaveLength(1);
  expect(posted('drift-cleared', orders)).toHaveLength(1);
  const [started] = posted('repair-started', orders);
  const run = started?.repairs?.[0];
  expect(run).toMatchObject({
    rules: ['auto-has-ha'],
    service: { id: orders, name: 'auto-orders' },
    outcome: { kind: 'running' },
  });
  expect(run?.workflowId).toMatch(/^repair-auto-ha-auto-orders-[0-9a-f]{16}-1$/);
  expect(posted('repair-outcome', orders).map((p) => p.repairs?.[0]?.outcome.kind)).toEqual(['repaired']);

  // An ordinary run of the catalogue's enable-ha, started by the verified repair identity.
  const progress = await stack.client.workflow.getHandle(run!.workflowId).query(progressQuery);
  expect(progress.admission).toMatchObject({
    allowed: true,
    mode: 'catalog',
    catalogEntry: { name: 'enable-ha' },
    starter: { by: REPAIRER, verified: true },
  });

  // Drift that comes back after clearing is a new appearance: repaired again, by a new run.
  await dropReplicas(orders);
  await thenSteady(
    'auto-ha',
    'the second repair to succeed',
    (s) =>
      s.repairs.filter((r) => r.service.id === orders && r.outcome.kind === 'repaired').length === 2 &&
      !s.findings.some((f) => f.service.id === orders),
  );
  const runs = posted('repair-started', orders).map((p) => p.repairs?.[0]?.workflowId);
  expect(runs).toHaveLength(2);
  expect(new Set(runs).size).toBe(2);
  expect(posted('drift-cleared', orders)).toHaveLength(2);

  const described = await tideline(['drift-watch', 'describe', 'auto-ha']);
  expect(described.out).toContain(`${run!.workflowId}: `);
  expect(described.out).toMatch(/enable-ha\.yaml for auto-orders \(\w+\), auto-has-ha: succeeded/);
  // The watcher's history replays on the workflow code as it is.
  expect(await stack.replayError(driftWatchWorkflowId('auto-ha'))).toBeUndefined();
}, 300_000);

test('a repair the policy denies changes nothing, is reported, and is not retried at later checks', async () => {
  const ledger = idOf(await seedService(stack, { name: 'auto-ledger', environment: 'PROD', ha: HA }));
  const running = await watcher('auto-ha')
    .describe()
    .then((d) => d.status.name === 'RUNNING')
    .catch(() => false);
  if (!running)
    expect(await tideline(['drift-watch', 'start', 'auto-ha', '--every', '1s'])).toMatchObject({ code: 0 });

  await dropReplicas(ledger);
  const refused = (s: DriftWatchStatus) =>
    s.repairs.some((r) => r.service.id === ledger && r.outcome.kind === 'refused');
  await thenSteady('auto-ha', 'the refusal of the ledger repair', refused);
  const status = await statusOf('auto-ha');
  await pollUntil(
    'five more checks',
    () => statusOf('auto-ha'),
    (s) => s.checks >= status.checks + 5,
    60_000,
  );

  expect((await getService(stack, ledger)).ha_replicas?.replica_count).toBe(0);
  expect(posted('repair-started', ledger)).toHaveLength(1);
  const outcomes = posted('repair-outcome', ledger).map((p) => p.repairs?.[0]?.outcome);
  expect(outcomes).toEqual([expect.objectContaining({ kind: 'refused', code: 'POLICY_DENIED' })]);
  expect(JSON.stringify(outcomes[0])).toContain('ledger-ha-by-people');
  const after = await statusOf('auto-ha');
  expect(after.repairs.filter((r) => r.service.id === ledger)).toHaveLength(1);
  // Still drift: the finding stays open (its repair run remembered), told once.
  expect(after.findings.find((f) => f.service.id === ledger)?.repairRun).toBe(
    after.repairs.find((r) => r.service.id === ledger)?.workflowId,
  );
  expect(posted('drift-appeared', ledger)).toHaveLength(1);
  const described = await tideline(['drift-watch', 'describe', 'auto-ha']);
  expect(described.out).toMatch(/auto-ledger \(\w+\), auto-has-ha: refused by the worker \[POLICY_DENIED\]/);
}, 300_000);

test('a raw start that claims a rule without repair.auto may be repaired repairs nothing', async () => {
  const manual = await seedService(stack, { name: 'manual-orders', environment: 'PROD' });
  const forged: DriftWatchInput = {
    state: 'manual-ha',
    everyMs: 200,
    findings: [
      {
        rule: 'manual-has-ha',
        severity: 'error',
        service: { id: idOf(manual), name: 'manual-orders' },
        expected: 'true',
        found: {},
        repair: path.join(RUNBOOKS, 'enable-ha.yaml'),
        auto: true,
      },
    ],
  };
  const handle = await stack.client.workflow.start(DRIFT_WATCH_WORKFLOW_TYPE, {
    taskQueue: stack.taskQueue,
    workflowId: driftWatchWorkflowId('manual-ha'),
    args: [forged],
  });
  const status = await pollUntil(
    'five checks',
    () => handle.query(driftWatchStatusQuery),
    (s) => s.checks >= 5,
    60_000,
  );
  expect(status.findings.map((f) => [f.rule, f.service.id, f.auto, f.repairRun])).toEqual([
    ['manual-has-ha', idOf(manual), undefined, undefined],
  ]);
  expect(status.repairs).toEqual([]);
  expect(posted('repair-started', idOf(manual))).toEqual([]);
  expect((await getService(stack, idOf(manual))).ha_replicas?.replica_count ?? 0).toBe(0);
  await handle.terminate('test done');
}, 120_000);
