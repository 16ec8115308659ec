// A foreach in `waves` through the real interpreter on a dev server: a wave starts only once every
// item of the one before it has ended, however early its other items end, and a failed item
// stops the next wave (the fleet case with a metric anomaly: test/fixtures/fleet/resize-in-waves.test.yaml).
import path from 'node:path';
import type { RunReport } from '../../contract/run-messages';
import { failedReport, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const fixture = path.resolve(__dirname, '..', 'fixtures', 'fleet', 'sleep-in-waves.yaml');

/** Each item's `work` step as [startedAt, endedAt], by position. */
function itemTimes(report: RunReport): [number, number][] {
  return report.steps
    .filter((step) => /^each\[\d+\]\.work$/.test(step.key))
    .sort((a, b) => Number(/\d+/.exec(a.key)?.[0]) - Number(/\d+/.exec(b.key)?.[0]))
    .map((step) => [step.startedAt ?? NaN, step.endedAt ?? NaN]);
}

describe('foreach waves', () => {
  let stack: RunbookStack;

  beforeAll(async () => {
    stack = await startRunbookStack();
  }, 120_000);
  afterAll(async () => stack?.close());

  test('each wave starts after the slowest item of the one before has ended', async () => {
    // The first item of each wave is slow: a sliding window of three would start item 3 as soon
    // as item 1 ended.
    const items = ['1500ms', '10ms', '10ms', '1500ms', '10ms', '10ms', '10ms'];
    const report: RunReport = await (await stack.start(fixture, { items })).result();
    expect(report.status).toBe('succeeded');
    const times = itemTimes(report);
    expect(times).toHaveLength(7);
    const waves = [times.slice(0, 3), times.slice(3, 6), times.slice(6)];
    for (let wave = 1; wave < waves.length; wave += 1) {
      const lastEnd = Math.max(...waves[wave - 1]!.map(([, ended]) => ended));
      const firstStart = Math.min(...waves[wave]!.map(([started]) => started));
      expect({ wave, startsAfterPrevious: firstStart >= lastEnd }).toEqual({
        wave,
        startsAfterPrevious: true,
      });
    }
  }, 60_000);

  test('a failed item lets its wave finish and starts no later wave', async () => {
    const items = ['10ms', 'not a duration', '10ms', '10ms', '10ms', '10ms'];
    const report = await failedReport(await stack.start(fixture, { items }));
    expect(report.failure?.stepKey).toBe('each[1].work');
    const statuses = Object.fromEntries(report.steps.map((step) => [step.key, step.status]));
    expect(statuses).toMatchObject({
      'each[0].work': 'done',
      'each[1].work': 'failed',
      'each[2].work': 'done',
    });
    expect(Object.keys(statuses).filter((key) => /^each\[[3-5]\]/.test(key))).toEqual([]);
  }, 60_000);
});
