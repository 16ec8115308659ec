// A run that holds a service lock and is terminated never releases it; the lock workflow notices
// that its holder has closed and hands the lock to the next run: its watch activity, which looks at
// the holder every 2 s, reports the holder gone (rather than the 30-minute watch window or the old
// 5-minute ping noticing). A lock held across a continue-as-new (its history grew) stays with its
// holder.
//
// The server suggests a continue-as-new at 300 events (instead of thousands), which the lock
// follows like its own limit: a few hundred signals grow its history far enough. (Thousands of
// signals on two loaded cores make workflow tasks time out, and replaying such a history can
// crash the SDK's workflow thread inside Node's async hooks, taking the test process with it.)
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { acquireLockSignal, lockWorkflowId, releaseLockSignal } from '../../contract/lock-messages';
import { progressQuery, type RunReport } from '../../contract/run-messages';
import { pollUntil, seedService } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const HOLD = path.resolve(__dirname, '..', 'fixtures', 'locks', 'hold-service.yaml');
/** History length at which the server suggests that a run continue as new. */
const SUGGEST_NEW_RUN_AT = 300;

let stack: RunbookStack;

beforeAll(async () => {
  stack = await startRunbookStack(
    { timeScale: 0.02 },
    { temporal: { dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_NEW_RUN_AT } } },
  );
}, 120_000);
afterAll(async () => stack?.close());

async function holdsLock(handle: WorkflowHandle, key: string): Promise<void> {
  await pollUntil(
    'the first run to hold the lock',
    () => handle.query(progressQuery),
    (p) => p.locks?.includes(key) === true,
    30_000,
  );
}

async function queuedFor(handle: WorkflowHandle, key: string): Promise<void> {
  await pollUntil(
    'the second run to queue for the lock',
    () => handle.query(progressQuery),
    (p) => p.waitingForLock === key,
    30_000,
  );
}

/** The lock.watchHolder activities of the lock's current run: scheduled, and how each ended. */
async function holderWatches(key: string): Promise<{ scheduled: number; completed: number }> {
  const history = await stack.client.workflow.getHandle(lockWorkflowId(key)).fetchHistory();
  const events = history.events ?? [];
  const watches = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'lock.watchHolder')
      .map((e) => String(e.eventId)),
  );
  const completed = events.filter(
    (e) =>
      e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED &&
      watches.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)),
  );
  return { scheduled: watches.size, completed: completed.length };
}

/**
 * Terminates the holder; the waiter must get the lock and succeed, and the watch activity must be
 * what noticed: a watch ends on its own only when the holder is gone (or after its 30-minute
 * window), so one that completed is the 2 s look at the holder. Gives the release latency, for
 * the log only: it depends on the machine's load.
 */
async function terminateAndExpectHandOver(
  key: string,
  holder: WorkflowHandle,
  waiter: WorkflowHandle,
): Promise<number> {
  await holder.terminate('test: a holder that never releases');
  const terminatedAt = Date.now();
  const report = (await waiter.result()) as RunReport;
  expect(report.status).toBe('succeeded');
  expect(await holderWatches(key)).toEqual({ scheduled: 1, completed: 1 });
  const tagStarted = report.steps.find((s) => s.id === 'tag')!.startedAt!;
  return tagStarted - terminatedAt;
}

test('a terminated holder’s lock passes to the waiting run once its watch sees the holder gone', async () => {
  const service = await seedService(stack, { name: 'held-by-terminated' });
  const key = `service/${stack.projectId}/${service.service_id}`;
  const inputs = { project_id: stack.projectId, service_id: service.service_id };
  const holder = await stack.start(HOLD, { ...inputs, hold: '1h' });
  await holdsLock(holder, key);
  const waiter = await stack.start(HOLD, { ...inputs, hold: '10ms' });
  await queuedFor(waiter, key);

  const latency = await terminateAndExpectHandOver(key, holder, waiter);
  process.stdout.write(`lock release after the holder was terminated: ${latency} ms\n`);
  // Nobody holds or waits any more: the lock workflow ends.
  const lock = stack.client.workflow.getHandle(lockWorkflowId(key));
  await expect(lock.result()).resolves.toBeUndefined();
}, 120_000);

test('a lock whose history grew continues as new with its holder, then still hands over', async () => {
  const service = await seedService(stack, { name: 'held-across-runs' });
  const key = `service/${stack.projectId}/${service.service_id}`;
  const inputs = { project_id: stack.projectId, service_id: service.service_id };
  const holder = await stack.start(HOLD, { ...inputs, hold: '1h' });
  await holdsLock(holder, key);
  const waiter = await stack.start(HOLD, { ...inputs, hold: '10ms' });
  await queuedFor(waiter, key);

  // Runs that queue and withdraw again (ids that are not runs) grow the lock's history past the
  // point where a new run is suggested. Batches stop once the lock has rolled over; signals already
  // in flight land in the new run, so it is only asserted to start far below that point.
  const lock = stack.client.workflow.getHandle(lockWorkflowId(key));
  const firstRun = (await lock.describe()).runId;
  for (let batch = 0; batch < 20 && (await lock.describe()).runId === firstRun; batch++) {
    const ids = Array.from({ length: 50 }, (_, i) => `ghost-${batch}-${i}`);
    await Promise.all(ids.map((requesterId) => lock.signal(acquireLockSignal, { key, requesterId })));
    await Promise.all(ids.map((requesterId) => lock.signal(releaseLockSignal, { key, requesterId })));
  }
  const next = await pollUntil(
    'the lock to continue as new',
    () => lock.describe(),
    (d) => d.runId !== firstRun && d.status.name === 'RUNNING',
    60_000,
  );
  expect(next.historyLength).toBeLessThan(SUGGEST_NEW_RUN_AT);
  // The holder kept the lock across the new run; the waiter still waits.
  expect((await holder.query(progressQuery)).locks).toEqual([key]);
  expect((await waiter.query(progressQuery)).waitingForLock).toBe(key);

  await terminateAndExpectHandOver(key, holder, waiter);
}, 180_000);
