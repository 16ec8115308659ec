// Two runs that change the same service queue on its lock; runs on different services do not. A
// run that finds no lock of its service starts one holding it (no acquire, no grant); a lock
// watches its holder only while a run waits behind it: the contended lock's history has the watch
// activity, an uncontended one only its start and the release (no activity, no patch marker).
// Requests as earlier releases send them queue on such a lock, and a holder that asks again (its
// request retried) is granted again.
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import {
  acquireLockSignal,
  HELD_LOCK_WORKFLOW_TYPE,
  LOCK_WORKFLOW_TYPE,
  lockWorkflowId,
  releaseLockSignal,
} from '../../contract/lock-messages';
import type { RunReport } from '../../contract/run-messages';
import { progressQuery } from '../../contract/run-messages';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const HOLD = path.resolve(__dirname, '..', 'fixtures', 'locks', 'hold-service.yaml');

/** The event types of a lock's last run, once it has ended (it ends when nobody holds or waits). */
async function lockHistory(stack: RunbookStack, key: string): Promise<{ type: string; events: string[] }> {
  const handle = stack.client.workflow.getHandle(lockWorkflowId(key));
  await handle.result();
  const history = await handle.fetchHistory();
  const events = (history.events ?? []).map(
    (event) => temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? '?',
  );
  return { type: (await handle.describe()).type, events };
}

/** Polls a condition until it holds (the test's timeout bounds it). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('per-service locks', () => {
  let stack: RunbookStack;
  const ids: string[] = [];

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.02 });
    for (const name of ['alpha', 'beta']) {
      const created = await stack.api.service.create({ project_id: stack.projectId, name });
      ids.push(created.service_id!);
    }
    await until(async () =>
      (await stack.api.service.list({ project_id: stack.projectId })).every((s) => s.status === 'READY'),
    );
  }, 120_000);
  afterAll(async () => stack?.close());

  test('a second run on the same service waits until the first has finished', async () => {
    const key = `service/${stack.projectId}/${ids[0]}`;
    const inputs = { project_id: stack.projectId, service_id: ids[0], hold: '5s' };
    const first = await stack.start(HOLD, inputs);
    await until(async () => ((await first.query(progressQuery)).locks ?? []).includes(key));
    const second = await stack.start(HOLD, inputs);
    const [a, b] = (await Promise.all([first.result(), second.result()])) as [RunReport, RunReport];
    expect(a.status).toBe('succeeded');
    expect(b.status).toBe('succeeded');
    // The second run asked for the lock while the first held it, and got it only afterwards: its
    // first step started after the first run ended. (Read from the reports, not from a live view.)
    const [wait] = b.lockWaits ?? [];
    expect(wait).toMatchObject({ key, acquiredAt: expect.any(Number) });
    expect(wait!.requestedAt).toBeLessThan(a.endedAt!);
    const secondTagStarted = b.steps.find((s) => s.id === 'tag')!.startedAt!;
    expect(secondTagStarted).toBeGreaterThanOrEqual(a.endedAt!);
    expect(wait!.acquiredAt!).toBeLessThanOrEqual(secondTagStarted);
    // Contended: the lock watched its holder while the second run waited.
    const lock = await lockHistory(stack, key);
    expect(lock.type).toBe(HELD_LOCK_WORKFLOW_TYPE);
    expect(lock.events).toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
  }, 90_000);

  test('runs on different services do not wait for each other', async () => {
    const first = await stack.start(HOLD, { project_id: stack.projectId, service_id: ids[0], hold: '5s' });
    const second = await stack.start(HOLD, { project_id: stack.projectId, service_id: ids[1], hold: '5s' });
    const [a, b] = (await Promise.all([first.result(), second.result()])) as [RunReport, RunReport];
    // They overlapped: each tagged its service while the other was still running (queued behind
    // each other, one would start only after the other's 5 s hold had ended).
    const aTag = a.steps.find((s) => s.id === 'tag')!.startedAt!;
    const bTag = b.steps.find((s) => s.id === 'tag')!.startedAt!;
    expect(aTag).toBeLessThan(b.endedAt!);
    expect(bTag).toBeLessThan(a.endedAt!);
    // Uncontended: started holding, then the release and the two workflow tasks (9 events) — no
    // acquire, no grant, no watch activity, no patch marker or version upsert.
    const lock = await lockHistory(stack, `service/${stack.projectId}/${ids[1]}`);
    expect(lock.type).toBe(HELD_LOCK_WORKFLOW_TYPE);
    expect(lock.events.filter((e) => e === 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED')).toHaveLength(1);
    expect(lock.events).not.toContain('EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED');
    expect(lock.events).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    expect(lock.events).not.toContain('EVENT_TYPE_MARKER_RECORDED');
    expect(lock.events).not.toContain('EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
    expect(lock.events.length).toBeLessThanOrEqual(9);
    // Nor was a grant sent to the run.
    expect(await signalsTo(stack, second.workflowId, 'tideline.lock.granted')).toHaveLength(0);
  }, 90_000);

  test('a request as earlier releases send it queues behind a run holding the lock from its start', async () => {
    const key = `service/${stack.projectId}/${ids[0]}`;
    const holder = await stack.start(HOLD, { project_id: stack.projectId, service_id: ids[0], hold: '4s' });
    await until(async () => ((await holder.query(progressQuery)).locks ?? []).includes(key));
    // The requester: a run that stays open (it holds its own service for a while) and, like a run
    // of an earlier release, asks with signal-with-start of the lock type it knew.
    const requester = await stack.start(HOLD, {
      project_id: stack.projectId,
      service_id: ids[1],
      hold: '20s',
    });
    const asOldRelease = { key, requesterId: requester.workflowId };
    await stack.client.workflow.signalWithStart(LOCK_WORKFLOW_TYPE, {
      workflowId: lockWorkflowId(key),
      taskQueue: stack.taskQueue,
      args: [key],
      signal: acquireLockSignal,
      signalArgs: [asOldRelease],
    });
    const held = (await holder.result()) as RunReport;
    // Granted once the holder had released: the grant is in the requester's history after that.
    await until(async () => (await grantTimes(stack, requester.workflowId)).length > 0);
    const [grantedAt] = await grantTimes(stack, requester.workflowId);
    expect(grantedAt!).toBeGreaterThanOrEqual(held.endedAt!);
    await stack.client.workflow.getHandle(lockWorkflowId(key)).signal(releaseLockSignal, asOldRelease);
    await requester.result();
  }, 90_000);

  test('a holder that asks again is granted again', async () => {
    const key = `service/${stack.projectId}/${ids[0]}`;
    const holder = await stack.start(HOLD, { project_id: stack.projectId, service_id: ids[0], hold: '10s' });
    await until(async () => ((await holder.query(progressQuery)).locks ?? []).includes(key));
    expect(await signalsTo(stack, holder.workflowId, 'tideline.lock.granted')).toHaveLength(0);
    // What a retried `lock.take` sends when its first attempt had started the lock.
    await stack.client.workflow
      .getHandle(lockWorkflowId(key))
      .signal(acquireLockSignal, { key, requesterId: holder.workflowId });
    await until(
      async () => (await signalsTo(stack, holder.workflowId, 'tideline.lock.granted')).length === 1,
    );
    expect(((await holder.result()) as RunReport).status).toBe('succeeded');
    // The lock ended with the holder's one release: it did not queue the holder twice.
    const lock = await lockHistory(stack, key);
    expect(lock.type).toBe(HELD_LOCK_WORKFLOW_TYPE);
  }, 90_000);
});

/** The signals of this name a workflow has received so far. */
async function signalsTo(stack: RunbookStack, workflowId: string, name: string) {
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter(
    (event) => event.workflowExecutionSignaledEventAttributes?.signalName === name,
  );
}

/** When the lock grants in a workflow's history arrived (ms since the epoch). */
async function grantTimes(stack: RunbookStack, workflowId: string): Promise<number[]> {
  return (await signalsTo(stack, workflowId, 'tideline.lock.granted')).map(
    (event) => Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6),
  );
}
