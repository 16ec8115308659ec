// A foreach's error budget (`maxErrors`, `onMaxErrors`) and ramp on a real Temporal dev server and
// the local cloud: which items started, the failure's report, what the rollback undid, and a
// budget that spans the batches of a fleet-sized foreach. Items fail by an assert on their name
// (or number), so which ones fail does not depend on chance or timing.
import path from 'node:path';
import type { RunReport, StepRecord } from '../../contract/run-messages';
import { seedFleet } from '../helpers/fleet';
import { reportOf } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'budget');
const SERVICES = 30;

/** The item index of a step key such as `stop_each[12].stop`. */
const indexOf = (key: string) => Number(/\[(\d+)\]/.exec(key)![1]);

function records(report: RunReport, pattern: RegExp): StepRecord[] {
  return report.steps.filter((s) => pattern.test(s.key)).sort((a, b) => indexOf(a.key) - indexOf(b.key));
}

describe('foreach error budget and ramp', () => {
  let stack: RunbookStack;

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.05 });
    await Promise.all(
      ['stop-', 'cancel-', 'ramp-'].map((prefix) =>
        seedFleet(stack.api, stack.projectId, SERVICES, prefix, 6),
      ),
    );
  }, 120_000);
  afterAll(async () => stack?.close());

  /** The services of a prefix in the order the foreach sees them (`service.list`'s order). */
  const listed = async (prefix: string) =>
    (await stack.api.service.list({ project_id: stack.projectId })).filter((s) => s.name!.startsWith(prefix));

  test('maxErrors 2: the third failed item stops new starts; the rollback undoes exactly the items that ran', async () => {
    const services = await listed('stop-');
    const failing = [3, 7, 11].map((n) => services[n]!.name!);
    const handle = await stack.start(path.join(FIXTURES, 'stop-budget.yaml'), {
      project_id: stack.projectId,
      prefix: 'stop-',
      failing,
    });
    const report = await reportOf(handle);

    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'stop_each', type: 'FOREACH_MAX_ERRORS' });
    expect(report.failure?.message).toBe(
      `3 of 30 items failed, more than maxErrors 2 allows: failed 3, 7, 11 (3); succeeded 0-2, 4-6, 8-10 (9); ` +
        `not started 12-29 (18); first failure at stop_each[3].check: ASSERTION_FAILED: ${failing[0]} fails on purpose`,
    );
    // One at a time: exactly items 0–11 started, and every stop they made was undone.
    const stops = records(report, /^stop_each\[\d+\]\.stop$/);
    expect(stops.map((s) => indexOf(s.key))).toEqual(Array.from({ length: 12 }, (_, n) => n));
    for (const stop of stops) expect(stop.status).toBe('compensated');
    expect(records(report, /^stop_each\[\d+\]\.check$/).filter((s) => s.status === 'failed')).toHaveLength(3);
    // Never-started items were never stopped, and the ones that ran are running again.
    const after = await listed('stop-');
    expect(after.filter((s) => s.status !== 'READY')).toEqual([]);
  }, 60_000);

  test('onMaxErrors cancel: the first failure cancels the items in flight; their stops are undone', async () => {
    const services = await listed('cancel-');
    const handle = await stack.start(path.join(FIXTURES, 'cancel-budget.yaml'), {
      project_id: stack.projectId,
      prefix: 'cancel-',
      failing: [services[0]!.name!],
    });
    const report = await reportOf(handle);

    expect(report.status).toBe('failed');
    expect(report.failure?.type).toBe('FOREACH_MAX_ERRORS');
    // Items 1–3 started beside item 0 (each then settles for seconds); item 0's failure cancelled
    // them wherever they were (a stop in flight finishes and registers its undo first); nothing
    // after them started.
    expect(report.failure?.message).toMatch(
      /^1 of 30 items failed, more than maxErrors 0 allows: failed 0 \(1\); succeeded none \(0\); cancelled 1-3 \(3\); not started 4-29 \(26\);/,
    );
    const stops = records(report, /^stop_each\[\d+\]\.stop$/);
    for (const stop of stops)
      expect([indexOf(stop.key), stop.status]).toEqual([indexOf(stop.key), 'compensated']);
    expect(stops.every((s) => [1, 2, 3].includes(indexOf(s.key)))).toBe(true);
    expect((await listed('cancel-')).filter((s) => s.status !== 'READY')).toEqual([]);
    expect(await stack.replayError(handle.workflowId)).toBeUndefined();
  }, 60_000);

  test('a ramp starts with one item and widens while items succeed; a failure stops the widening', async () => {
    const services = await listed('ramp-');
    const handle = await stack.start(path.join(FIXTURES, 'ramp-budget.yaml'), {
      project_id: stack.projectId,
      prefix: 'ramp-',
      failing: [services[1]!.name!],
    });
    const report = await reportOf(handle);

    // One failed item is within maxErrors 2: the foreach (so the run) succeeds.
    expect(report.status).toBe('succeeded');
    const iterations = Array.from({ length: SERVICES }, (_, n) => {
      const steps = report.steps.filter((s) => s.key.startsWith(`stop_each[${n}].`));
      return {
        start: Math.min(...steps.map((s) => s.startedAt!)),
        end: Math.max(...steps.map((s) => s.endedAt!)),
      };
    });
    const inFlightAt = (t: number) => iterations.filter((i) => i.start <= t && t < i.end).length;
    const widest = Math.max(...iterations.map((i) => inFlightAt(i.start)));
    // Item 0 ran alone; the width became 2 after it, and item 1's failure kept it there.
    expect(iterations.slice(1).every((i) => i.start >= iterations[0]!.end)).toBe(true);
    expect(widest).toBe(2);
    expect(records(report, /^stop_each\[\d+\]\.check$/).filter((s) => s.status === 'failed')).toHaveLength(1);
    expect(await stack.replayError(handle.workflowId)).toBeUndefined();
  }, 60_000);

  test('the budget counts across batches; later batches never start', async () => {
    const items = Array.from({ length: 250 }, (_, n) => n);
    const handle = await stack.start(path.join(FIXTURES, 'batch-budget.yaml'), { items });
    const report = await reportOf(handle);

    // Items 9, 19, …, 99 fail in batch 0 (10 of 12 allowed); 109 and 119 in batch 1 spend the
    // rest, 129 is one too many; batch 2 (200–249) never starts.
    expect(report.status).toBe('failed');
    expect(report.failure?.type).toBe('FOREACH_MAX_ERRORS');
    expect(report.failure?.message).toMatch(
      /^13 of 250 items failed, more than maxErrors 12 allows: failed 9, 19, 29, .*, 119, 129 \(13\); succeeded 0-8, .*, 120-128 \(117\); not started 130-249 \(120\);/,
    );
    const works = records(report, /^each\[\d+\]\.work$/);
    expect(works.map((w) => indexOf(w.key))).toEqual(Array.from({ length: 130 }, (_, n) => n));
    for (const work of works) expect(work.status).toBe('compensated');
    const children = (await stack.client.workflow.getHandle(handle.workflowId).fetchHistory()).events!.filter(
      (e) => e.childWorkflowExecutionStartedEventAttributes,
    );
    expect(children).toHaveLength(2);
  }, 60_000);
});
