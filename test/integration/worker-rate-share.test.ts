// Two worker processes on one task queue share a project's API budget: each counts the workers
// polling the queue (and says so in its log) and takes half, so that ten fleet runs served by both
// stay under the budget in the local cloud's request log.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRunbookFile } from '../../dsl/loader';
import type { RunReport } from '../../contract/run-messages';
import { seedFleet } from '../helpers/fleet';
import type { GuardedProcess } from '../helpers/guarded-process';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { peakInWindow, peakOpen, peakRatePerSecond } from '../helpers/request-log';
import { pollUntil } from '../helpers/runbook-fixtures';
import { REPO_ROOT, startWorkerProcess } from '../helpers/worker-process';

const LIMIT = { callsPerSecond: 10, concurrentCalls: 4 };
const RUNS = 10;
const PER_RUN = 3;
const taskQueue = `rate-share-${randomBytes(4).toString('hex')}`;

let dir: string;
let stack: ProcessWorkerStack;
const workers: GuardedProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-rate-share-'));
  stack = await startProcessWorkerStack({ taskQueue, cloud: { timeScale: 0.05 } });
}, 240_000);
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('two worker processes take half the budget each and together stay under it', async () => {
  const config = path.join(dir, 'worker.json');
  writeFileSync(config, JSON.stringify({ cloud: { rateLimit: LIMIT } }), { mode: 0o600 });
  const env = { ...stack.workerEnv(), TIDELINE_CONFIG: config };
  workers.push(await startWorkerProcess({ env }), await startWorkerProcess({ env }));
  for (const worker of workers) {
    await pollUntil(
      'each worker to count two',
      async () => worker.output(),
      (output) => output.includes("2 workers share each project's API budget"),
      60_000,
    );
  }
  const projectId = stack.cloud.project.id;
  await Promise.all(
    Array.from({ length: RUNS }, (_, i) => seedFleet(stack.api, projectId, PER_RUN, `rw${i}-`, 1)),
  );
  stack.cloud.cloud.resetStats();

  const definition = loadRunbookFile(path.join(REPO_ROOT, 'runbooks', 'stop-dev-services.yaml'));
  const handles = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      stack.client.workflow.start('runbookWorkflow', {
        taskQueue,
        workflowId: `rate-share-${i}-${randomBytes(3).toString('hex')}`,
        args: [
          { definition, inputs: { project_id: projectId, name_prefix: `rw${i}-`, concurrency: PER_RUN } },
        ],
      }),
    ),
  );
  const reports = (await Promise.all(handles.map((handle) => handle.result()))) as RunReport[];
  expect(reports.map((r) => r.status)).toEqual(Array(RUNS).fill('succeeded'));

  const log = stack.cloud.cloud.requestLog().filter((entry) => entry.project === projectId);
  const peak = peakRatePerSecond(log);
  process.stdout.write(
    `rate limit, two workers: ${log.length} requests, peak ${peak}/s over 5 s (${peakInWindow(log, 1_000)} in the busiest second)\n`,
  );
  expect(peak).toBeLessThanOrEqual(LIMIT.callsPerSecond);
  expect(peakOpen(log)).toBeLessThanOrEqual(LIMIT.concurrentCalls);
}, 300_000);
