// A project's API budget, measured where it matters: in the local cloud's own request log. Twenty
// fleet runs (stop-dev-services, three services each, three at a time, their waits polling every
// second, each read slowed to 0.8 s) share one project with a budget of 10 calls per second and 4
// at once: no 5 seconds of the log hold more than 50 of the project's requests (the peak rate, see
// peakRatePerSecond), never more than 4 are open at once, and the runs still stop every service.
// A 429 with Retry-After pauses every caller of the project, not only the run that got it. (Two
// worker processes sharing it: worker-rate-share.test.ts.)
import { seedFleet } from '../helpers/fleet';
import { peakInWindow, peakOpen, peakRatePerSecond } from '../helpers/request-log';
import { reportOf } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const LIMIT = { callsPerSecond: 10, concurrentCalls: 4 };
const RUNS = 20;
const PER_RUN = 3;

let stack: RunbookStack;

beforeAll(async () => {
  stack = await startRunbookStack({ timeScale: 0.05 }, { rateLimit: LIMIT });
}, 60_000);
afterAll(async () => stack?.close());

const projectLog = () => stack.cloud.cloud.requestLog().filter((entry) => entry.project === stack.projectId);

async function stopFleets(prefix: string, runs: number) {
  const handles = await Promise.all(
    Array.from({ length: runs }, (_, i) =>
      stack.start('stop-dev-services.yaml', {
        project_id: stack.projectId,
        name_prefix: `${prefix}${i}-`,
        concurrency: PER_RUN,
      }),
    ),
  );
  return Promise.all(handles.map((handle) => reportOf(handle)));
}

test('20 fleet runs sharing one project stay under its budget in the local cloud’s request log', async () => {
  await Promise.all(
    Array.from({ length: RUNS }, (_, i) => seedFleet(stack.api, stack.projectId, PER_RUN, `rl${i}-`, 1)),
  );
  stack.cloud.cloud.resetStats();
  // Slow reads, so that the runs would have more than 4 open at once without the budget.
  stack.cloud.cloud.addFaults({ action: 'service.get', kind: 'latency', ms: 800 });

  const reports = await stopFleets('rl', RUNS);
  stack.cloud.cloud.clearFaults();
  expect(reports.map((r) => r.status)).toEqual(Array(RUNS).fill('succeeded'));
  for (const report of reports) expect(report.outputs.stopped).toHaveLength(PER_RUN);

  const log = projectLog();
  // Every run listed, every service stopped and polled at least once.
  expect(log.length).toBeGreaterThanOrEqual(RUNS + 2 * RUNS * PER_RUN);
  const duration = (log.at(-1)!.receivedAt - log[0]!.receivedAt) / 1000;
  const peak = peakRatePerSecond(log);
  process.stdout.write(
    `rate limit: ${log.length} requests in ${duration.toFixed(1)} s, peak ${peak}/s over 5 s ` +
      `(${peakInWindow(log, 1_000)} in the busiest second), ${peakOpen(log)} open at most\n`,
  );
  expect(peak).toBeLessThanOrEqual(LIMIT.callsPerSecond);
  // The runs wanted more than the budget: the calls in flight reached its limit, and never passed it.
  expect(peakOpen(log)).toBe(LIMIT.concurrentCalls);
}, 300_000);

test('a 429 with Retry-After pauses every caller of the project, not only the run that got it', async () => {
  await Promise.all(
    Array.from({ length: 4 }, (_, i) => seedFleet(stack.api, stack.projectId, 2, `ra${i}-`, 1)),
  );
  stack.cloud.cloud.resetStats();
  stack.cloud.cloud.addFaults({ action: 'service.get', kind: 'rateLimit', retryAfterSeconds: 6, times: 1 });

  const reports = await stopFleets('ra', 4);
  expect(reports.map((r) => r.status)).toEqual(Array(4).fill('succeeded'));

  const log = projectLog();
  const limited = log.filter((entry) => entry.status === 429);
  expect(limited).toHaveLength(1);
  const pausedFrom = limited[0]!.answeredAt;
  // Requests started before the worker read the 429 (up to 1.5 s on a loaded machine) may still
  // arrive after it; then nothing from any run until the 6 s pause is over.
  const during = log.filter((e) => e.receivedAt > pausedFrom + 1_500 && e.receivedAt < pausedFrom + 5_500);
  expect(during).toEqual([]);
  expect(log.some((e) => e.receivedAt >= pausedFrom + 5_500)).toBe(true);
}, 300_000);
