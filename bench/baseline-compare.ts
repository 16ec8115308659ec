// Figure 7 — tideline against a hand-written Temporal workflow (bench/baseline/): the same Cloud
// API calls and the same polling, written as a user would write them with the SDK alone. Side by
// side in one benchmark run: one provisioning (wall time, history events, worker CPU), and N
// provisionings at once at a 30 s lifecycle (completion, worker and server CPU per run, events per
// run). The fleet case is in bench/baseline-fleet.ts. Every ratio is tideline / baseline.
import type { WorkflowHandle } from '@temporalio/client';
import type { RunReport } from '../contract/run-messages';
import { historyEvents, startBaselineProvisioning, startBaselineWorker } from './baseline/harness';
import { startDevServer, type DevServer } from './lib/dev-server';
import { startUsageSampler, treeUsage } from './lib/proc-usage';
import { startBenchStack, type BenchStack, type Durations } from './lib/stack';
import { mapLimit, mean, median, round, sleep } from './lib/stats';
import { TUNED_WORKER, TUNED_WORKER_NODE_ARGS } from './settings';
import { runningCount } from './throughput';

export type Side = 'tideline' | 'baseline';

export interface SingleCost {
  wallMs: number;
  events: number;
  /** CPU of the side's worker process tree from the start request to the result, ms. */
  workerCpuMs: number;
}

/** tideline / baseline of wall time, history events and worker CPU. */
export interface CostRatios {
  wall: number;
  events: number;
  cpu: number;
}

export interface BaselineSingleResult {
  label: string;
  durations: Durations;
  repetitions: number;
  /** Medians over the repetitions. */
  tideline: SingleCost;
  baseline: SingleCost;
  ratio: CostRatios;
}

export interface ConcurrentCost {
  succeeded: number;
  /** Services READY and tagged PROD at the end (must equal the runs). */
  readyProd: number;
  /** First start request → last run closed, ms. */
  completionMs: number;
  workerCpuMsPerRun: number;
  serverCpuMsPerRun: number;
  /** Mean over a sample of the runs (the first 20 started). */
  eventsPerRun: number;
  workerPeakRssMiB: number;
  /** CPU of the bench process (the local cloud and the Temporal client) per run, ms (absent in old results). */
  benchCpuMsPerRun?: number;
  timedOut: boolean;
}

/** The spread of a measure over the samples of one side. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/**
 * One side of a concurrent case: the medians over its samples, and each measure's spread (absent
 * from results saved before the harness took several samples).
 */
export interface SampledConcurrentCost extends ConcurrentCost {
  samples?: number;
  spread?: {
    completionMs: Spread;
    workerCpuMsPerRun: Spread;
    serverCpuMsPerRun: Spread;
    benchCpuMsPerRun: Spread;
  };
}

export interface BaselineConcurrentResult {
  runs: number;
  label: string;
  tideline: SampledConcurrentCost;
  baseline: SampledConcurrentCost;
  /** Which side ran first in each sample (they alternate). */
  order: Side[];
  ratio: CostRatios & { workerAndServerCpu: number };
}

const ratio = (a: number, b: number) => round(a / Math.max(b, 1e-9), 2);

/** The ratios of two sides measured as wall time, events and worker CPU (one run, or a fleet). */
export function costRatios(tideline: SingleCost, baseline: SingleCost): CostRatios {
  return {
    wall: ratio(tideline.wallMs, baseline.wallMs),
    events: ratio(tideline.events, baseline.events),
    cpu: ratio(tideline.workerCpuMs, baseline.workerCpuMs),
  };
}

/** Starts a run, waits for its result, and reads the worker's CPU and the history. */
async function costOfRun(
  workerPid: number,
  start: () => Promise<WorkflowHandle>,
  succeeded: (result: unknown) => boolean,
): Promise<SingleCost> {
  const cpuBefore = treeUsage(workerPid).cpuSeconds;
  const began = performance.now();
  const handle = await start();
  const result: unknown = await handle.result();
  const wallMs = performance.now() - began;
  const workerCpuMs = (treeUsage(workerPid).cpuSeconds - cpuBefore) * 1000;
  if (!succeeded(result)) throw new Error(`${handle.workflowId} did not succeed`);
  return { wallMs, workerCpuMs, events: await historyEvents(handle) };
}

const tidelineSucceeded = (result: unknown) => (result as RunReport).status === 'succeeded';
const baselineSucceeded = (result: unknown) =>
  typeof (result as { serviceId?: unknown }).serviceId === 'string';

/**
 * One provisioning of each, side by side on one dev server and one local cloud: the stock tideline
 * worker and the baseline worker with the SDK's defaults, each in its own process. A first run of
 * each warms its worker and is not counted.
 */
export async function measureBaselineSingle(
  server: DevServer,
  label: string,
  durations: Durations,
  repetitions: number,
): Promise<BaselineSingleResult> {
  const stack = await startBenchStack({ server, durations });
  const queue = `${stack.taskQueue}-baseline`;
  try {
    const baselineWorker = await startBaselineWorker(stack, { taskQueue: queue });
    try {
      const pair = (tag: string) =>
        Promise.all([
          costOfRun(stack.worker!.pid, () => stack.startProvisioning(`tl-${tag}`), tidelineSucceeded),
          costOfRun(
            baselineWorker.pid,
            () => startBaselineProvisioning(stack, queue, `bl-${tag}`),
            baselineSucceeded,
          ),
        ]);
      await pair('warm-up');
      const samples: Array<[SingleCost, SingleCost]> = [];
      for (let rep = 0; rep < repetitions; rep++) samples.push(await pair(String(rep)));
      const medianCost = (index: 0 | 1): SingleCost => ({
        wallMs: round(median(samples.map((s) => s[index].wallMs)), 0),
        events: median(samples.map((s) => s[index].events)),
        workerCpuMs: round(median(samples.map((s) => s[index].workerCpuMs)), 0),
      });
      const tideline = medianCost(0);
      const baseline = medianCost(1);
      return {
        label,
        durations,
        repetitions,
        tideline,
        baseline,
        ratio: costRatios(tideline, baseline),
      };
    } finally {
      await baselineWorker.stop();
    }
  } finally {
    await stack.close();
  }
}

/**
 * N runs of one side started at once (50 start requests in flight) on a fresh dev server and local
 * cloud, on a worker with the tuned settings (bench/settings.ts) whichever side it is.
 */
async function measureConcurrentSide(
  side: Side,
  runs: number,
  durations: Durations,
  timeoutMs: number,
): Promise<ConcurrentCost> {
  const server = await startDevServer();
  try {
    const stack: BenchStack = await startBenchStack({
      server,
      durations,
      ...(side === 'tideline'
        ? { tuning: TUNED_WORKER, workerNodeArgs: TUNED_WORKER_NODE_ARGS }
        : { noWorker: true }),
    });
    try {
      const worker =
        stack.worker ??
        (await startBaselineWorker(stack, {
          taskQueue: stack.taskQueue,
          tuning: TUNED_WORKER,
          nodeArgs: TUNED_WORKER_NODE_ARGS,
        }));
      try {
        const workerUsage = startUsageSampler(worker.pid);
        const serverUsage = startUsageSampler(server.pid());
        const benchCpuBefore = process.cpuUsage();
        const startedAt = Date.now();
        const names = Array.from(
          { length: runs },
          (_, i) => `${side.slice(0, 2)}-${String(i).padStart(4, '0')}`,
        );
        const handles = await mapLimit(names, 50, (name) =>
          side === 'tideline'
            ? stack.startProvisioning(name)
            : startBaselineProvisioning(stack, stack.taskQueue, name),
        );
        let timedOut = false;
        await sleep(5_000);
        while ((await runningCount(stack)) > 0) {
          if (Date.now() - startedAt > timeoutMs) {
            timedOut = true;
            break;
          }
          await sleep(250);
        }
        const workerReport = workerUsage.stop();
        const serverReport = serverUsage.stop();
        const benchCpu = process.cpuUsage(benchCpuBefore);
        const closeTimes: number[] = [];
        let succeeded = 0;
        for await (const run of stack.client.workflow.list({ query: `TaskQueue = '${stack.taskQueue}'` })) {
          if (run.closeTime !== undefined) closeTimes.push(run.closeTime.getTime());
          if (run.status.name === 'COMPLETED') succeeded += 1;
        }
        const sample = await Promise.all(handles.slice(0, 20).map(historyEvents));
        const services = await stack.api.service.list({ project_id: stack.access.projectId });
        const perRun = (seconds: number) => round((seconds * 1000) / runs, 0);
        return {
          succeeded,
          readyProd: services.filter((s) => s.status === 'READY' && s.metadata?.environment === 'PROD')
            .length,
          completionMs: timedOut ? Date.now() - startedAt : Math.max(...closeTimes) - startedAt,
          workerCpuMsPerRun: perRun(workerReport.cpuSeconds),
          serverCpuMsPerRun: perRun(serverReport.cpuSeconds),
          eventsPerRun: round(mean(sample), 1),
          workerPeakRssMiB: workerReport.peakRssMiB,
          benchCpuMsPerRun: perRun((benchCpu.user + benchCpu.system) / 1e6),
          timedOut,
        };
      } finally {
        if (stack.worker === undefined) await worker.stop();
      }
    } finally {
      await stack.close();
    }
  } finally {
    await server.stop();
  }
}

/** Runs in the discarded warm-up pair of a concurrent case. */
const WARM_UP_RUNS = 50;

function spreadOf(values: readonly number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

/** The medians of one side's samples, with the spread of each timed measure. */
function sampled(samples: readonly ConcurrentCost[]): SampledConcurrentCost {
  const of = (pick: (c: ConcurrentCost) => number) => spreadOf(samples.map(pick));
  const spread = {
    completionMs: of((c) => c.completionMs),
    workerCpuMsPerRun: of((c) => c.workerCpuMsPerRun),
    serverCpuMsPerRun: of((c) => c.serverCpuMsPerRun),
    benchCpuMsPerRun: of((c) => c.benchCpuMsPerRun ?? 0),
  };
  return {
    samples: samples.length,
    spread,
    succeeded: Math.min(...samples.map((c) => c.succeeded)),
    readyProd: Math.min(...samples.map((c) => c.readyProd)),
    completionMs: spread.completionMs.median,
    workerCpuMsPerRun: spread.workerCpuMsPerRun.median,
    serverCpuMsPerRun: spread.serverCpuMsPerRun.median,
    benchCpuMsPerRun: spread.benchCpuMsPerRun.median,
    eventsPerRun: median(samples.map((c) => c.eventsPerRun)),
    workerPeakRssMiB: Math.max(...samples.map((c) => c.workerPeakRssMiB)),
    timedOut: samples.some((c) => c.timedOut),
  };
}

/**
 * N concurrent provisionings of each side, each sample on its own fresh dev server: a warm-up
 * pair at a smaller size first (discarded), then `samples` pairs, the side that goes first
 * alternating, so neither always runs on a machine the other has just warmed or loaded.
 */
export async function measureBaselineConcurrent(
  runs: number,
  durations: Durations,
  label: string,
  samples: number,
): Promise<BaselineConcurrentResult> {
  const timeoutMs = 20 * 60_000;
  for (const side of ['tideline', 'baseline'] as const)
    await measureConcurrentSide(side, Math.min(runs, WARM_UP_RUNS), durations, timeoutMs);
  const measured: Record<Side, ConcurrentCost[]> = { tideline: [], baseline: [] };
  const order: Side[] = [];
  for (let sample = 0; sample < Math.max(1, samples); sample++) {
    const sides: Side[] = sample % 2 === 0 ? ['tideline', 'baseline'] : ['baseline', 'tideline'];
    order.push(sides[0]!);
    for (const side of sides)
      measured[side].push(await measureConcurrentSide(side, runs, durations, timeoutMs));
  }
  const tideline = sampled(measured.tideline);
  const baseline = sampled(measured.baseline);
  return {
    runs,
    label,
    tideline,
    baseline,
    order,
    ratio: {
      wall: ratio(tideline.completionMs, baseline.completionMs),
      events: ratio(tideline.eventsPerRun, baseline.eventsPerRun),
      cpu: ratio(tideline.workerCpuMsPerRun, baseline.workerCpuMsPerRun),
      workerAndServerCpu: ratio(
        tideline.workerCpuMsPerRun + tideline.serverCpuMsPerRun,
        baseline.workerCpuMsPerRun + baseline.serverCpuMsPerRun,
      ),
    },
  };
}
