// Figure 7, fleet case — stop-dev-services against the hand-written baseline's stopDevServices
// (bench/baseline/workflows.ts): list, then stop each READY DEV service and wait until it is PAUSED,
// 20 at a time. Each side on a fresh local cloud seeded with the same fleet, one after the other on
// one dev server, on its worker with default settings (as figure 6). Wall time from start to
// result, worker CPU for the run, and history events (tideline's with its batch children).
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadRunbookFile } from '../dsl/loader';
import type { RunReport } from '../workflows/messages';
import { historyEvents, startBaselineStopDev, startBaselineWorker } from './baseline/harness';
import type { DevServer } from './lib/dev-server';
import { runFootprint, seedFleet } from './lib/fleet';
import { startUsageSampler } from './lib/proc-usage';
import { RUNBOOKS_DIR } from './lib/repo';
import { startBenchStack } from './lib/stack';
import { round } from './lib/stats';
import type { Side } from './baseline-compare';

const CONCURRENCY = 20;

export interface FleetSideCost {
  paused: number;
  wallMs: number;
  /** All histories of the run (tideline: the run and its foreach batch children). */
  events: number;
  workerCpuMs: number;
  serverCpuMs: number;
}

export interface BaselineFleetResult {
  services: number;
  concurrency: number;
  tideline: FleetSideCost;
  baseline: FleetSideCost;
  ratio: { wall: number; events: number; cpu: number };
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
      let events: number;
      if (side === 'tideline') {
        const handle = await stack.client.workflow.start('runbookWorkflow', {
          taskQueue: stack.taskQueue,
          workflowId: `fleet-${services}-${randomBytes(4).toString('hex')}`,
          args: [
            {
              definition: loadRunbookFile(path.join(RUNBOOKS_DIR, 'stop-dev-services.yaml')),
              inputs: { project_id: stack.access.projectId, name_prefix: 'fleet-', concurrency: CONCURRENCY },
            },
          ],
        });
        const report = (await handle.result()) as RunReport;
        if (report.status !== 'succeeded') throw new Error(`tideline fleet run ended ${report.status}`);
        const footprint = await runFootprint(stack.client, handle.workflowId);
        events = [footprint.run, ...footprint.children].reduce((sum, h) => sum + h.events, 0);
      } else {
        const handle = await startBaselineStopDev(stack, stack.taskQueue, {
          namePrefix: 'fleet-',
          concurrency: CONCURRENCY,
        });
        await handle.result();
        events = await historyEvents(handle);
      }
      const wallMs = Date.now() - began;
      const workerReport = workerUsage.stop();
      const serverReport = serverUsage.stop();
      const listed = await stack.api.service.list({ project_id: stack.access.projectId });
      return {
        paused: listed.filter((s) => s.status === 'PAUSED').length,
        wallMs,
        events,
        workerCpuMs: round(workerReport.cpuSeconds * 1000, 0),
        serverCpuMs: round(serverReport.cpuSeconds * 1000, 0),
      };
    } finally {
      if (stack.worker === undefined) await worker.stop();
    }
  } finally {
    await stack.close({ keepServer: true });
  }
}

export async function measureBaselineFleet(
  server: DevServer,
  services: number,
): Promise<BaselineFleetResult> {
  const tideline = await measureFleetSide(server, 'tideline', services);
  const baseline = await measureFleetSide(server, 'baseline', services);
  const ratio = (a: number, b: number) => round(a / Math.max(b, 1e-9), 2);
  return {
    services,
    concurrency: CONCURRENCY,
    tideline,
    baseline,
    ratio: {
      wall: ratio(tideline.wallMs, baseline.wallMs),
      events: ratio(tideline.events, baseline.events),
      cpu: ratio(tideline.workerCpuMs, baseline.workerCpuMs),
    },
  };
}
