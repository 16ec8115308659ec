// Two runs that change the same service queue on its lock; runs on different services do not. A
// lock watches its holder only while a run waits behind it: the contended lock's history has the
// watch activity, an uncontended one only its queue's signals (no activity, no patch marker).
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { LOCK_WORKFLOW_TYPE, lockWorkflowId } from '../../contract/lock-messages';
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
    expect(lock.type).toBe(LOCK_WORKFLOW_TYPE);
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
    // Uncontended: a start, the acquire, the grant, the release and their workflow tasks (15
    // events) — no watch activity, no patch marker or version upsert.
    const lock = await lockHistory(stack, `service/${stack.projectId}/${ids[1]}`);
    expect(lock.events).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    expect(lock.events).not.toContain('EVENT_TYPE_MARKER_RECORDED');
    expect(lock.events).not.toContain('EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
    expect(lock.events.length).toBeLessThanOrEqual(15);
  }, 90_000);
});
