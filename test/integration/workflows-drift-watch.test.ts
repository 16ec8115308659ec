// The drift watcher through a real worker, the local cloud and a real HTTP receiver: the worker
// watches a state file its configuration names; `tideline drift-watch start` checks it every
// second. Across several checks: a clean fleet notifies nothing; a service losing its HA replica
// notifies "drift appeared" once, however many checks see it; repairing it notifies "drift
// cleared" once. Every wait is on the watcher's check count or the posts received, never a sleep.
// Over continue-as-new the findings carry on: drift is told once however many runs see it. A
// watcher of a state the worker does not watch fails with DRIFT_STATE_UNKNOWN.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DRIFT_WATCH_WORKFLOW_TYPE } from '../../contract/workflow-types';
import {
  driftWatchStatusQuery,
  driftWatchWorkflowId,
  type DriftNotificationPayload,
} from '../../contract/drift-watch-messages';
import { Secret } from '../../cloud/redact';
import { loadDriftStates } from '../../worker/drift-states';
import { runCliAgainst } from '../helpers/cli-in-process';
import { idOf, pollUntil, seedService, waitForService } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { testKeyRing } from '../helpers/worker-process';

const STATE = `apiVersion: tideline/v1
kind: State
name: watched-ha
rules:
  - name: watched-has-ha
    select: { name: 'watched-*' }
    expect: has(service.ha_replicas) && has(service.ha_replicas.replica_count) && service.ha_replicas.replica_count >= 1
`;

let receiver: WebhookReceiver;
let stack: RunbookStack;
let dir: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-drift-watch-'));
  writeFileSync(path.join(dir, 'watched.state.yaml'), STATE);
  const targets = new Map([
    ['drift-hook', { type: 'webhook' as const, url: new Secret(receiver.url('/drift')) }],
    ['chat', { type: 'slack' as const, url: new Secret(receiver.url('/chat')), runbooks: [] }],
  ]);
  const problems: string[] = [];
  const drift = loadDriftStates(
    { states: ['.'], notify: ['drift-hook', 'chat'] },
    new Set(targets.keys()),
    dir,
    problems,
  );
  expect(problems).toEqual([]);
  stack = await startRunbookStack(
    { timeScale: 0.05 },
    {
      keyRing: testKeyRing,
      notifications: { targets, maxAttempts: 3, retryIntervalMs: 50 },
      ...(drift !== undefined && { drift }),
    },
  );
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const tideline = (args: string[]) =>
  runCliAgainst({ address: stack.server.address, taskQueue: stack.taskQueue }, args);

const posted = (event: string) =>
  (receiver.accepted('/drift') as DriftNotificationPayload[]).filter((p) => p.event === event);

/** Waits until the watcher has done `count` checks in all. */
async function checksReach(count: number): Promise<number> {
  const handle = stack.client.workflow.getHandle(driftWatchWorkflowId('watched-ha'));
  const status = await pollUntil(
    `${count} drift checks`,
    () => handle.query(driftWatchStatusQuery),
    (s) => s.checks >= count,
    60_000,
  );
  return status.checks;
}

async function setReplicas(service_id: string, replica_count: number): Promise<void> {
  await stack.api.service.setHA({
    project_id: stack.projectId,
    service_id,
    replica_count,
    sync_replica_count: 0,
  });
  await waitForService(
    stack,
    service_id,
    (s) => s.status === 'READY' && s.ha_replicas?.replica_count === replica_count,
  );
}

/** Waits for the first post of `event`, then for three more checks (which must tell nothing new). */
async function postedThenSteady(event: string): Promise<void> {
  await pollUntil(
    `the ${event} post`,
    () => Promise.resolve(posted(event)),
    (p) => p.length > 0,
    60_000,
  );
  const handle = stack.client.workflow.getHandle(driftWatchWorkflowId('watched-ha'));
  await checksReach((await handle.query(driftWatchStatusQuery)).checks + 3);
}

test('notifies once when drift appears and once when it clears, across several checks', async () => {
  const service = await seedService(stack, {
    name: 'watched-orders',
    ha: { replica_count: 1, sync_replica_count: 0 },
  });
  const service_id = idOf(service);
  const project_id = stack.projectId;

  const started = await tideline(['drift-watch', 'start', 'watched-ha', '--every', '1s']);
  expect(started).toMatchObject({ code: 0, err: '' });
  expect(started.out).toContain('watching watched-ha every 1s');
  const again = await tideline(['drift-watch', 'start', 'watched-ha', '--every', '1s']);
  expect(again.code).toBe(2);
  expect(again.err).toContain('watched already');

  await checksReach(2);
  expect(receiver.accepted('/drift')).toEqual([]);

  await setReplicas(service_id, 0);
  await postedThenSteady('drift-appeared');
  expect(posted('drift-appeared')).toHaveLength(1);
  expect(posted('drift-cleared')).toHaveLength(0);
  expect(posted('drift-appeared')[0]).toMatchObject({
    state: 'watched-ha',
    projectId: project_id,
    open: 1,
    findings: [
      {
        rule: 'watched-has-ha',
        severity: 'error',
        service: { id: service_id, name: 'watched-orders' },
        found: { 'ha_replicas.replica_count': 0 },
      },
    ],
  });
  const chat = receiver.accepted('/chat') as { text: string }[];
  expect(chat).toHaveLength(1);
  expect(chat[0]?.text).toContain('drift in `watched-ha`');
  expect(chat[0]?.text).toContain('`watched-orders`');

  await setReplicas(service_id, 1);
  await postedThenSteady('drift-cleared');
  expect(posted('drift-appeared')).toHaveLength(1);
  expect(posted('drift-cleared')).toHaveLength(1);
  expect(posted('drift-cleared')[0]).toMatchObject({
    open: 0,
    findings: [{ rule: 'watched-has-ha', service: { id: service_id } }],
  });
  expect(receiver.accepted('/chat')).toHaveLength(2);

  const described = await tideline(['drift-watch', 'describe', 'watched-ha']);
  expect(described.code).toBe(0);
  expect(described.out).toMatch(/^watched-ha: running, every 1s, \d+ check\(s\)/);
  expect(described.out).toContain('0 open finding(s)');
  expect(described.out).toContain('4 notification(s) delivered, 0 failed');

  const stopped = await tideline(['drift-watch', 'stop', 'watched-ha']);
  // The watcher's history replays on the workflow code as it is (a worker that lost it from cache).
  expect(await stack.replayError(driftWatchWorkflowId('watched-ha'))).toBeUndefined();
  expect(stopped).toMatchObject({ code: 0, out: 'stopped watching watched-ha\n' });
  const after = await tideline(['drift-watch', 'describe', 'watched-ha', '--json']);
  expect(JSON.parse(after.out)).toMatchObject({ status: 'terminated', findings: [] });
}, 240_000);

test('the findings carry over continue-as-new: drift found once is told once', async () => {
  const service = await seedService(stack, { name: 'watched-carried' });
  const handle = await stack.client.workflow.start(DRIFT_WATCH_WORKFLOW_TYPE, {
    taskQueue: stack.taskQueue,
    workflowId: driftWatchWorkflowId('watched-ha-carried'),
    args: [{ state: 'watched-ha', everyMs: 200, checksPerRun: 2 }],
  });
  const carriedPosts = () =>
    posted('drift-appeared').filter(
      (p) => p.workflowId === handle.workflowId && p.findings.some((f) => f.service.id === idOf(service)),
    );
  await pollUntil(
    'the drift-appeared post',
    () => Promise.resolve(carriedPosts()),
    (p) => p.length > 0,
    60_000,
  );
  const status = await pollUntil(
    'three runs of checks',
    () => handle.query(driftWatchStatusQuery),
    (s) => s.checks >= 6,
    60_000,
  );
  const latest = await handle.describe();
  expect(latest.runId).not.toBe(handle.firstExecutionRunId);
  expect(status.findings.map((f) => f.service.id)).toContain(idOf(service));
  expect(carriedPosts()).toHaveLength(1);
  await handle.terminate('test done');
}, 120_000);

test('a watcher of a state the worker does not watch fails with DRIFT_STATE_UNKNOWN', async () => {
  const started = await tideline(['drift-watch', 'start', 'not-watched', '--every', '1m']);
  expect(started.code).toBe(0);
  const handle = stack.client.workflow.getHandle(driftWatchWorkflowId('not-watched'));
  await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'DRIFT_STATE_UNKNOWN' } });
}, 60_000);
