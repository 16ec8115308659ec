// Fleet-sized foreach loops: a loop over more items than a batch runs in child
// workflows, every history stays small, the loop's output is whole, a failure in a later batch
// undoes the iterations of every batch newest first, and iterations lock the services they
// change, so concurrent runs never change one service at the same time.
import path from 'node:path';
import { progressQuery, type RunReport, type StepRecord } from '../../contract/run-messages';
import { runFootprint, seedFleet } from '../helpers/fleet';
import { pollUntil, reportOf } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'fleet');
/** Two batches (FOREACH_BATCH_SIZE is 100): enough for every later-batch case, and quick. */
const FLEET = 130;

describe('fleet-sized foreach', () => {
  let stack: RunbookStack;
  let fleet: string[];

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.05 });
    fleet = await seedFleet(stack.api, stack.projectId, FLEET);
  }, 120_000);
  afterAll(async () => stack?.close());

  const services = async () => stack.api.service.list({ project_id: stack.projectId });

  test('a failure in a later batch undoes every done iteration of every batch, newest first', async () => {
    const handle = await stack.start(path.join(FIXTURES, 'tag-fleet.yaml'), {
      project_id: stack.projectId,
      fail_at: 'fleet-0120',
    });
    const report = await reportOf(handle);

    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ type: 'RUNBOOK_FAILED_STEP' });
    expect(report.failure?.stepKey).toMatch(/^tag_each\[1\d\d\]\.boom$/);
    const marks = report.steps.filter((s) => /^tag_each\[\d+\]\.mark$/.test(s.key));
    // Batch 0 (items 0–99) finished in its own child; the failing batch got past item 100.
    expect(marks.length).toBeGreaterThan(100);
    for (const mark of marks) expect(mark.status).toBe('compensated');
    // Newest first: every iteration of the later batch is undone before any of batch 0, and
    // batch 0's in the reverse of the order they completed in (as batch 0's child recorded them:
    // the run's own records now end when they were compensated).
    const undos = report.steps.filter((s) => s.key.endsWith('/undo.unmark'));
    expect(undos).toHaveLength(marks.length);
    const undoneOrder = [...undos].sort((a, b) => a.startedAt! - b.startedAt!).map((u) => u.compensates!);
    const index = (key: string) => Number(/\[(\d+)\]/.exec(key)![1]);
    const firstOfBatch0 = undoneOrder.findIndex((key) => index(key) < 100);
    expect(undoneOrder.slice(0, firstOfBatch0).every((key) => index(key) >= 100)).toBe(true);
    expect(undoneOrder.slice(firstOfBatch0).every((key) => index(key) < 100)).toBe(true);
    const batch0 = await stack.client.workflow
      .getHandle(`${handle.workflowId}/tag_each[0-99]`)
      .query(progressQuery);
    const completedAt = new Map(batch0.steps.map((s) => [s.key, s.endedAt!]));
    const ends = undoneOrder.slice(firstOfBatch0).map((key) => completedAt.get(key)!);
    expect(ends).toHaveLength(100);
    for (let i = 1; i < ends.length; i++) expect(ends[i]).toBeLessThanOrEqual(ends[i - 1]!);
    const fleetServices = (await services()).filter((s) => fleet.includes(s.service_id!));
    expect(fleetServices.every((s) => s.metadata?.environment === 'DEV')).toBe(true);
  }, 90_000);

  test('a run cancelled during a later batch undoes the iterations of every batch', async () => {
    const items = Array.from({ length: 200 }, (_, n) => n);
    const handle = await stack.start(path.join(FIXTURES, 'slow-items.yaml'), { items });
    // Batch 0's records reach the run when batch 0 has ended; batch 1 then works for seconds
    // (a sleep takes about a second on the dev server, whose timers are coarse).
    await pollUntil(
      'batch 0 to end',
      () => handle.query(progressQuery),
      (progress) => progress.steps.filter((s) => s.key.endsWith('.work')).length >= 100,
      30_000,
    );
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();

    const progress = await handle.query(progressQuery);
    expect(progress.status).toBe('cancelled');
    const works = progress.steps.filter((s) => /^each\[\d+\]\.work$/.test(s.key));
    // Whatever finished, in either batch, was undone; what was cut off failed as cancelled.
    expect(works.filter((s) => s.status === 'done')).toEqual([]);
    expect(works.filter((s) => s.status === 'compensated').length).toBeGreaterThanOrEqual(100);
    for (const work of works.filter((s) => s.status === 'compensated')) {
      expect(progress.steps.find((s) => s.key === `${work.key}/undo.undo_work`)?.status).toBe('done');
    }
  }, 60_000);

  test('two runs locking the same services per iteration both finish, one at a time per service', async () => {
    const [s1, s2, s3] = fleet.slice(-3) as [string, string, string];
    const first = await stack.start(path.join(FIXTURES, 'tag-pairs.yaml'), {
      project_id: stack.projectId,
      pairs: [
        { a: s1, b: s2 },
        { a: s2, b: s3 },
      ],
    });
    const second = await stack.start(path.join(FIXTURES, 'tag-pairs.yaml'), {
      project_id: stack.projectId,
      pairs: [
        { a: s3, b: s2 },
        { a: s2, b: s1 },
      ],
    });
    const reports = (await Promise.all([first.result(), second.result()])) as [RunReport, RunReport];
    expect(reports.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);

    // Each iteration holds its services from its first change to the end of its hold.
    const spans = (report: RunReport, index: number, pair: { a: string; b: string }) => {
      const at = (id: string): StepRecord => report.steps.find((s) => s.key === `each[${index}].${id}`)!;
      return { services: [pair.a, pair.b], from: at('tag_a').startedAt!, to: at('hold').endedAt! };
    };
    const runs = [
      [spans(reports[0], 0, { a: s1, b: s2 }), spans(reports[0], 1, { a: s2, b: s3 })],
      [spans(reports[1], 0, { a: s3, b: s2 }), spans(reports[1], 1, { a: s2, b: s1 })],
    ];
    const all = runs.flat();
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        const [x, y] = [all[i]!, all[j]!];
        if (!x.services.some((s) => y.services.includes(s))) continue;
        // Sharing a service: one span ends before (or when) the other starts.
        expect(x.to <= y.from || y.to <= x.from).toBe(true);
      }
    }
  }, 60_000);

  test('stop-dev-services over a fleet pauses every service with small histories', async () => {
    const handle = await stack.start('stop-dev-services.yaml', {
      project_id: stack.projectId,
      name_prefix: 'fleet-',
      concurrency: 20,
    });
    const report = await reportOf(handle);
    expect(report.status).toBe('succeeded');

    // The three lock-test services were tagged PROD: stop-dev-services leaves them alone.
    const dev = fleet.slice(0, -3);
    expect([...(report.outputs.stopped as string[])].sort()).toEqual([...dev].sort());
    const statuses = new Map((await services()).map((s) => [s.service_id!, s.status]));
    expect(dev.filter((id) => statuses.get(id) !== 'PAUSED')).toEqual([]);

    const footprint = await runFootprint(stack.client, handle.workflowId);
    // 127 services: two batch children of at most 100 items each.
    expect(footprint.children).toHaveLength(2);
    // Inline, 150 services took 12.9 MB. Now: a few KB per service in the run, and each child
    // well inside Temporal's warnings (10 MB, 10K events).
    // The batches answer only what the run reads of each iteration (`stopped` reads the paused
    // step's service_id) and compact step records: ~1.6 KB per service, most of it the
    // service.list answer (before: ~3 KB, every iteration's outputs stored twice).
    expect(footprint.run.bytes / dev.length).toBeLessThan(2_500);
    expect(footprint.run.events).toBeLessThan(100);
    for (const child of footprint.children) {
      expect(child.bytes).toBeLessThan(1_000_000);
      expect(child.events).toBeLessThan(4_000);
    }
  }, 120_000);
});
