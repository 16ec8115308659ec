// Figure 7, fleet case — stop-dev-services against the hand-written baseline's stopDevServices
// (bench/baseline/workflows.ts): list, then stop each READY DEV service and wait until it is PAUSED,
// 20 at a time. Each side on a fresh local cloud seeded with the same fleet, one after the other on
// one dev server, on its worker with default settings (as figure 6). Wall time from start to
// result, worker CPU for the run, and the events of every workflow on the side's task queue:
// tideline's run, its foreach batch children and the per-service lock workflows its iterations
// queue on (figure 6 counts the run and its children only).
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadRunbookFile } from '../dsl/loader';
import type { RunReport } from '../contract/run-messages';
import {
  HELD_LOCK_WORKFLOW_TYPE,
  LOCK_WORKFLOW_TYPE,
  WATCHING_LOCK_WORKFLOW_TYPE,
} from '../contract/workflow-types';
import { historyEvents, startBaselineStopDev, startBaselineWorker } from './baseline/harness';
import type { DevServer } from './lib/dev-server';
import { seedFleet } from './lib/fleet';
import { startUsageSampler } from './lib/proc-usage';
import { RUNBOOKS_DIR } from './lib/repo';
import { startBenchStack, type BenchStack } from './lib/stack';
import { mapLimit, round } from './lib/stats';
import { costRatios, type CostRatios, type Side } from './baseline-compare';

const CONCURRENCY = 20;

export interface FleetSideCost {
  paused: number;
  wallMs: number;
  /** Every workflow history on the task queue: the run, its children and lock workflows. */
  events: number;
  workflows: number;
  /** Of `events`: tideline's per-service lock workflows (0 for the baseline). */
  lockEvents: number;
  lockWorkflows: number;
  workerCpuMs: number;
  serverCpuMs: number;
}

export interface BaselineFleetResult {
  services: number;
  concurrency: number;
  tideline: FleetSideCost;
  baseline: FleetSideCost;
  ratio: CostRatios;
}

const LOCK_TYPES: ReadonlySet<string> = new Set([
  LOCK_WORKFLOW_TYPE,
  HELD_LOCK_WORKFLOW_TYPE,
  WATCHING_LOCK_WORKFLOW_TYPE,
]);

/** Workflows on the stack's task queue and their history events, lock workflows apart. */
async function taskQueueHistories(stack: BenchStack) {
  const runs: Array<{ workflowId: string; lock: boolean }> = [];
  for await (const run of stack.client.workflow.list({ query: `TaskQueue = '${stack.taskQueue}'` })) {
    runs.push({ workflowId: run.workflowId, lock: LOCK_TYPES.has(run.type) });
  }
  const events = await mapLimit(runs, 20, (run) =>
    historyEvents(stack.client.workflow.getHandle(run.workflowId)),
  );
  const sum = (lock: boolean) => events.reduce((total, n, i) => total + (runs[i]!.lock === lock ? n : 0), 0);
  return {
    events: sum(false) + sum(true),
    workflows: runs.length,
    lockEvents: sum(true),
    lockWorkflows: runs.filter((run) => run.lock).length,
  };
}

async function measureFleetSide(server: DevServer, side: Side, services: number): Promise<FleetSideCost> {
  const stack = await startBenchStack({
    server,
    durations: { queued: 20, configuring: 20, pausing: 1_000 },
    ...(side === 'baseline' ? { noWorker: true } : {}),
  });
  try {
    const worker = stack.worker ?? (await startBaselineWorker(stack, { taskQueue: stack.taskQueue }));
    try {
      await seedFleet(stack.api, stack.access.projectId, services);
      const workerUsage = startUsageSampler(worker.pid);
      const serverUsage = startUsageSampler(server.pid());
      const began = Date.now();
      if (side === 'tideline') {
        const handle = await stack.startRun(
          loadRunbookFile(path.join(RUNBOOKS_DIR, 'stop-dev-services.yaml')),
          { project_id: stack.access.projectId, name_prefix: 'fleet-', concurrency: CONCURRENCY },
          `fleet-${services}-${randomBytes(4).toString('hex')}`,
        );
        const report = (await handle.result()) as RunReport;
        if (report.status !== 'succeeded') throw new Error(`tideline fleet run ended ${report.status}`);
      } else {
        const handle = await startBaselineStopDev(stack, stack.taskQueue, {
          namePrefix: 'fleet-',
          concurrency: CONCURRENCY,
        });
        await handle.result();
      }
      const wallMs = Date.now() - began;
      const workerReport = workerUsage.stop();
      const serverReport = serverUsage.stop();
      const listed = await stack.api.service.list({ project_id: stack.access.projectId });
      return {
        paused: listed.filter((s) => s.status === 'PAUSED').length,
        wallMs,
        ...(await taskQueueHistories(stack)),
        workerCpuMs: round(workerReport.cpuSeconds * 1000, 0),
        serverCpuMs: round(serverReport.cpuSeconds * 1000, 0),
      };
    } finally {
      if (stack.worker === undefined) await worker.stop();
    }
  } finally {
    await stack.close();
  }
}

export async function measureBaselineFleet(
  server: DevServer,
  services: number,
): Promise<BaselineFleetResult> {
  const tideline = await measureFleetSide(server, 'tideline', services);
  const baseline = await measureFleetSide(server, 'baseline', services);
  return {
    services,
    concurrency: CONCURRENCY,
    tideline,
    baseline,
    ratio: costRatios(tideline, baseline),
  };
}
