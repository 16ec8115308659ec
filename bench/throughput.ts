// Figure 2 — throughput: N provision-production-service runs started at once on this machine (dev
// server + one worker process + the local cloud), against the lower bound (one run of the 100 ms
// polling script: the cloud has no capacity limit, so N runs could all finish that fast).
// Completion time, runbooks/s, end-to-end p50/p95 (server start → close), and the worker's RSS and
// CPU read from /proc.
import type { WorkerTuning } from './tuned-worker';
import type { DevServer } from './lib/dev-server';
import { startUsageSampler, type UsageReport } from './lib/proc-usage';
import { startBenchStack, type BenchStack, type Durations } from './lib/stack';
import { mapLimit, round, sleep, summarize, type Summary } from './lib/stats';

export interface ThroughputOptions {
  /** Names the case in tables, e.g. "tuned worker, 30 s lifecycle". */
  label: string;
  runs: number;
  durations: Durations;
  /** One run of the polling script at these durations, ms. */
  lowerBoundMs: number;
  /** Absent: the stock worker (dist/worker/main.js) with the SDK's default settings. */
  tuning?: WorkerTuning;
  /** Node flags of the worker process. */
  workerNodeArgs?: string[];
  /** Give up after this long from the first start (the result then says how many finished). */
  timeoutMs?: number;
}

export interface ThroughputResult {
  label: string;
  runs: number;
  worker: 'stock' | 'tuned';
  tuning: WorkerTuning | null;
  workerNodeArgs: string[];
  succeeded: number;
  /** First start request → last run closed, ms. */
  completionMs: number;
  lowerBoundMs: number;
  ratio: number;
  runbooksPerSecond: number;
  /** Time to submit every start request, ms. */
  submitMs: number;
  endToEndMs: Summary;
  workerUsage: UsageReport;
  serverUsage: UsageReport;
  /** CPU time per run, ms: worker, dev server, and this process (local cloud + client). */
  cpuMsPerRun: { worker: number; server: number; bench: number };
  /** This process: the local cloud and the client. */
  benchCpuSeconds: number;
  apiCalls: number;
  servicesReadyProd: number;
  timedOut: boolean;
  /** With several samples of the case (each on a fresh dev server): this is the median one. */
  spread?: ThroughputSpread;
}

/** Min and max over a case's samples, of the figures its table shows. */
export interface ThroughputSpread {
  samples: number;
  completionMs: [number, number];
  ratio: [number, number];
  workerCpuMsPerRun: [number, number];
  serverCpuMsPerRun: [number, number];
}

/** The median sample by completion time, with the spread of all of them. */
export function medianWithSpread(samples: readonly ThroughputResult[]): ThroughputResult {
  if (samples.length === 0) throw new Error('no throughput samples');
  const sorted = [...samples].sort((a, b) => a.completionMs - b.completionMs);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  if (samples.length === 1) return median;
  const range = (pick: (sample: ThroughputResult) => number): [number, number] => {
    const values = samples.map(pick);
    return [Math.min(...values), Math.max(...values)];
  };
  return {
    ...median,
    spread: {
      samples: samples.length,
      completionMs: range((sample) => sample.completionMs),
      ratio: range((sample) => sample.ratio),
      workerCpuMsPerRun: range((sample) => sample.cpuMsPerRun.worker),
      serverCpuMsPerRun: range((sample) => sample.cpuMsPerRun.server),
    },
  };
}

interface Closed {
  status: string;
  startMs: number;
  closeMs: number;
}

export async function closedRuns(stack: BenchStack): Promise<Closed[]> {
  const closed: Closed[] = [];
  for await (const execution of stack.client.workflow.list({ query: `TaskQueue = '${stack.taskQueue}'` })) {
    if (execution.closeTime === undefined) continue;
    closed.push({
      status: execution.status.name,
      startMs: execution.startTime.getTime(),
      closeMs: execution.closeTime.getTime(),
    });
  }
  return closed;
}

export async function runningCount(stack: BenchStack): Promise<number> {
  const { count } = await stack.client.workflow.count(
    `TaskQueue = '${stack.taskQueue}' AND ExecutionStatus = 'Running'`,
  );
  return count;
}

export async function measureThroughput(
  server: DevServer,
  options: ThroughputOptions,
): Promise<ThroughputResult> {
  const stack = await startBenchStack({
    server,
    durations: options.durations,
    ...(options.tuning ? { tuning: options.tuning } : {}),
    ...(options.workerNodeArgs ? { workerNodeArgs: options.workerNodeArgs } : {}),
  });
  try {
    const workerUsage = startUsageSampler(stack.worker!.pid);
    const serverUsage = startUsageSampler(server.pid());
    const benchCpu = process.cpuUsage();
    stack.cloud.resetStats();

    const startedAt = Date.now();
    const names = Array.from({ length: options.runs }, (_, i) => `tp-${String(i).padStart(4, '0')}`);
    await mapLimit(names, 50, (name) => stack.startProvisioning(name));
    const submitMs = Date.now() - startedAt;

    const deadline = startedAt + (options.timeoutMs ?? 30 * 60_000);
    let timedOut = false;
    await sleep(Math.min(options.lowerBoundMs * 0.8, 5_000));
    while ((await runningCount(stack)) > 0) {
      if (Date.now() > deadline) {
        timedOut = true;
        break;
      }
      await sleep(250);
    }
    const closed = await closedRuns(stack);
    const worker = workerUsage.stop();
    const serverReport = serverUsage.stop();
    const cpu = process.cpuUsage(benchCpu);
    const apiCalls = stack.cloud.stats().total;

    const succeeded = closed.filter((run) => run.status === 'COMPLETED');
    // Cut off: the time it ran is a lower bound of the completion time.
    const completionMs = timedOut
      ? Date.now() - startedAt
      : Math.max(...closed.map((run) => run.closeMs)) - startedAt;
    const services = await stack.api.service.list({ project_id: stack.access.projectId });
    const benchCpuSeconds = (cpu.user + cpu.system) / 1e6;
    const perRun = (cpuSeconds: number) => round((cpuSeconds * 1000) / options.runs, 0);
    return {
      label: options.label,
      runs: options.runs,
      worker: options.tuning ? 'tuned' : 'stock',
      tuning: options.tuning ?? null,
      workerNodeArgs: options.workerNodeArgs ?? [],
      succeeded: succeeded.length,
      completionMs,
      lowerBoundMs: round(options.lowerBoundMs, 0),
      ratio: round(completionMs / options.lowerBoundMs, 2),
      runbooksPerSecond: round(succeeded.length / (completionMs / 1000), 2),
      submitMs,
      endToEndMs: summarize(
        closed.map((run) => run.closeMs - run.startMs),
        0,
      ),
      workerUsage: worker,
      serverUsage: serverReport,
      cpuMsPerRun: {
        worker: perRun(worker.cpuSeconds),
        server: perRun(serverReport.cpuSeconds),
        bench: perRun(benchCpuSeconds),
      },
      benchCpuSeconds: round(benchCpuSeconds, 1),
      apiCalls,
      servicesReadyProd: services.filter((s) => s.status === 'READY' && s.metadata?.environment === 'PROD')
        .length,
      timedOut,
    };
  } finally {
    await stack.close();
  }
}
