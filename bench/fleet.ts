// Figure 6 — fleet: stop-dev-services over 10, 100 and 1,000 READY DEV services. Its history must
// grow linearly with the fleet (flat bytes per service) and stay far inside Temporal's limits:
// the run and each foreach batch child under 10 MB and 10K events (the server warns there; it
// terminates a run at 50 MB / 50K events). Inline, 150 services took 12.9 MB and 360 were
// terminated at the limit.
//
// The local cloud creates services in 40 ms (seeding is not what is measured) and pauses one in
// 1 s, its default; the run stops 20 at a time (the runbook's largest concurrency). Wall time is
// from the start of the run to its result, on the stock worker in its own process.
import type { RunReport } from '../contract/run-messages';
import { runFootprint, seedFleet, type HistorySize } from './lib/fleet';
import type { DevServer } from './lib/dev-server';
import { RUNBOOKS_DIR } from './lib/repo';
import { startBenchStack } from './lib/stack';
import { loadRunbookFile } from '../dsl/loader';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export const FLEET_SIZES = [10, 100, 1000];
const CONCURRENCY = 20;

export interface FleetResult {
  services: number;
  /** Services PAUSED at the end (must equal `services`). */
  paused: number;
  wallMs: number;
  run: HistorySize;
  children: number;
  /** The largest child history (events and bytes are each the maximum over the children). */
  largestChild: { events: number; bytes: number };
  /** The run and all its children together. */
  total: { events: number; bytes: number };
  bytesPerService: number;
  eventsPerService: number;
  measuredAt: string;
}

async function measureSize(server: DevServer, services: number): Promise<FleetResult> {
  const stack = await startBenchStack({
    server,
    durations: { queued: 20, configuring: 20, pausing: 1_000 },
  });
  try {
    await seedFleet(stack.api, stack.access.projectId, services);
    const definition = loadRunbookFile(path.join(RUNBOOKS_DIR, 'stop-dev-services.yaml'));
    const began = Date.now();
    const handle = await stack.startRun(
      definition,
      { project_id: stack.access.projectId, name_prefix: 'fleet-', concurrency: CONCURRENCY },
      `fleet-${services}-${randomBytes(4).toString('hex')}`,
    );
    const report = (await handle.result()) as RunReport;
    const wallMs = Date.now() - began;
    if (report.status !== 'succeeded') throw new Error(`fleet run over ${services} ended ${report.status}`);
    const listed = await stack.api.service.list({ project_id: stack.access.projectId });
    const footprint = await runFootprint(stack.client, handle.workflowId);
    const all = [footprint.run, ...footprint.children];
    const total = {
      events: all.reduce((sum, h) => sum + h.events, 0),
      bytes: all.reduce((sum, h) => sum + h.bytes, 0),
    };
    return {
      services,
      paused: listed.filter((s) => s.status === 'PAUSED').length,
      wallMs,
      run: footprint.run,
      children: footprint.children.length,
      largestChild: {
        events: Math.max(0, ...footprint.children.map((c) => c.events)),
        bytes: Math.max(0, ...footprint.children.map((c) => c.bytes)),
      },
      total,
      bytesPerService: Math.round(total.bytes / services),
      eventsPerService: Number((total.events / services).toFixed(2)),
      measuredAt: new Date().toISOString(),
    };
  } finally {
    await stack.close();
  }
}

/** One size after the other, each on a fresh local cloud and worker, on the same dev server. */
export async function measureFleet(server: DevServer, sizes: number[] = FLEET_SIZES): Promise<FleetResult[]> {
  const results: FleetResult[] = [];
  for (const size of sizes) results.push(await measureSize(server, size));
  return results;
}
