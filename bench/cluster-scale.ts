// `npm run bench -- --cluster --workers 1,2,4 [--runs 1000]`: scale-out on the native cluster
// (`tideline cluster`: the pinned Temporal server on PostgreSQL). For each worker count, a fresh
// cluster, that many tuned worker processes, and N provision-production-service runs started at
// once (30 s lifecycle): completion against the lower bound, runs/s, CPU per run of the workers,
// the server and PostgreSQL (process trees, /proc), and worker RSS. Load average noted with each
// case (the machine may be shared). Writes bench/results/cluster-scale.json and .md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { NEW_CLUSTER_SHARDS } from '../cluster/state';
import { benchLog, startBenchCluster } from './cluster-server';
import { loadAverage, startUsageSampler, type UsageReport } from './lib/proc-usage';
import { RESULTS_DIR } from './lib/repo';
import { startBenchStack } from './lib/stack';
import { mapLimit, round, sleep, summarize, type Summary } from './lib/stats';
import type { WorkerProcess } from './lib/worker-process';
import { STANDARD_DURATIONS, TUNED_WORKER, TUNED_WORKER_NODE_ARGS, lifecycleMs } from './settings';
import { closedRuns, runningCount } from './throughput';

/** The polling script's overhead over the lifecycle when figure 1 was not run (bench/main.ts). */
const SCRIPT_EXTRA_MS = 400;

export interface ScaleCase {
  workers: number;
  runs: number;
  succeeded: number;
  completionMs: number;
  lowerBoundMs: number;
  ratio: number;
  runsPerSecond: number;
  submitMs: number;
  /** Each run's start → close (server times), ms. */
  endToEndMs: Summary;
  /** bench: this process — the local cloud and the client. */
  cpuMsPerRun: { workers: number; server: number; postgres: number; bench: number };
  /** CPU seconds per wall second over the case (1.0 = one core busy). */
  cpuCores: { workers: number; server: number; postgres: number; bench: number };
  workerPeakRssMiB: number[];
  serverPeakRssMiB: number;
  loadAverageStart: number[];
  loadAverageEnd: number[];
}

export interface ScaleResults {
  generatedAt: string;
  historyShards: number;
  cpus: number;
  lifecycleMs: number;
  cases: ScaleCase[];
}

function sum(reports: UsageReport[], pick: (report: UsageReport) => number): number {
  return reports.reduce((total, report) => total + pick(report), 0);
}

export async function measureClusterScale(workerCount: number, runs: number): Promise<ScaleCase> {
  const loadAverageStart = loadAverage();
  const cluster = await startBenchCluster('cluster-scale');
  const stack = await startBenchStack({
    server: cluster.server,
    durations: STANDARD_DURATIONS,
    noWorker: true,
  });
  const workers: WorkerProcess[] = [];
  try {
    const start = () => stack.startWorker(TUNED_WORKER, TUNED_WORKER_NODE_ARGS);
    workers.push(...(await Promise.all(Array.from({ length: workerCount }, start))));
    const pids = cluster.pids();
    const workerUsage = workers.map((worker) => startUsageSampler(worker.pid));
    const serverUsage = startUsageSampler(pids.server ?? 0);
    const postgresUsage = startUsageSampler(pids.postgres ?? 0);

    const benchCpu = process.cpuUsage();
    const startedAt = Date.now();
    const names = Array.from({ length: runs }, (_, i) => `scale-${String(i).padStart(4, '0')}`);
    await mapLimit(names, 50, (name) => stack.startProvisioning(name));
    const submitMs = Date.now() - startedAt;
    // Completion from visibility, as figure 2 measures it (not 1,000 result long-polls held open
    // on the frontend, which would be load of their own).
    while ((await runningCount(stack)) > 0) await sleep(500);
    const closed = await closedRuns(stack);
    const completionMs = Math.max(...closed.map((run) => run.closeMs)) - startedAt;
    const workerReports = workerUsage.map((sampler) => sampler.stop());
    const server = serverUsage.stop();
    const postgres = postgresUsage.stop();
    const benchUsage = process.cpuUsage(benchCpu);
    const benchCpuSeconds = (benchUsage.user + benchUsage.system) / 1e6;
    const wallSeconds = (Date.now() - startedAt) / 1000;
    const succeeded = closed.filter((run) => run.status === 'COMPLETED').length;
    const lowerBoundMs = lifecycleMs(STANDARD_DURATIONS) + SCRIPT_EXTRA_MS;
    const perRun = (cpuSeconds: number) => round((cpuSeconds * 1000) / runs, 1);
    return {
      workers: workerCount,
      runs,
      succeeded,
      completionMs,
      lowerBoundMs,
      ratio: round(completionMs / lowerBoundMs, 2),
      runsPerSecond: round(succeeded / (completionMs / 1000), 2),
      submitMs,
      endToEndMs: summarize(
        closed.map((run) => run.closeMs - run.startMs),
        0,
      ),
      cpuMsPerRun: {
        workers: perRun(sum(workerReports, (r) => r.cpuSeconds)),
        server: perRun(server.cpuSeconds),
        postgres: perRun(postgres.cpuSeconds),
        bench: perRun(benchCpuSeconds),
      },
      cpuCores: {
        workers: round(
          sum(workerReports, (r) => r.cpuCores),
          2,
        ),
        server: server.cpuCores,
        postgres: postgres.cpuCores,
        bench: round(benchCpuSeconds / wallSeconds, 2),
      },
      workerPeakRssMiB: workerReports.map((r) => r.peakRssMiB),
      serverPeakRssMiB: server.peakRssMiB,
      loadAverageStart,
      loadAverageEnd: loadAverage(),
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await stack.close();
    await cluster.close();
  }
}

export function renderScaleMarkdown(results: ScaleResults): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const header = [
    'workers',
    'runs (ok)',
    'completion (× bound)',
    'runs/s',
    'e2e p50 / p95',
    'CPU ms/run: workers / server / PostgreSQL / bench',
    'cores busy: workers / server / PostgreSQL / bench',
    'worker peak RSS',
    'load avg (start → end)',
  ];
  const rows = results.cases.map((c) => [
    c.workers,
    `${c.runs} (${c.succeeded})`,
    `${s(c.completionMs)} (${c.ratio}×)`,
    c.runsPerSecond,
    `${s(c.endToEndMs.p50)} / ${s(c.endToEndMs.p95)}`,
    `${c.cpuMsPerRun.workers} / ${c.cpuMsPerRun.server} / ${c.cpuMsPerRun.postgres} / ${c.cpuMsPerRun.bench}`,
    `${c.cpuCores.workers} / ${c.cpuCores.server} / ${c.cpuCores.postgres} / ${c.cpuCores.bench}`,
    c.workerPeakRssMiB.map((mib) => `${Math.round(mib)}`).join(' + ') + ' MiB',
    `${c.loadAverageStart[0] ?? '?'} → ${c.loadAverageEnd[0] ?? '?'}`,
  ]);
  const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  return [
    `Native cluster scale-out (${results.generatedAt}, ${results.cpus} CPUs, ${results.historyShards} history shards; lifecycle ${s(results.lifecycleMs)}; lower bound ${s(results.cases[0]?.lowerBoundMs ?? 0)})`,
    '',
    line(header),
    line(header.map(() => '---')),
    ...rows.map(line),
  ].join('\n');
}

function listFlag(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(`--${name}`);
  if (index >= 0) return argv[index + 1];
  return argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
}

/** The `--cluster` entry of bench/main.ts. */
export async function runClusterScale(argv: string[]): Promise<void> {
  const workerCounts = (listFlag(argv, 'workers') ?? '1,2,4').split(',').map(Number);
  const runs = Number(listFlag(argv, 'runs') ?? 1000);
  if (workerCounts.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(runs) || runs < 1) {
    throw new Error('--workers takes counts like 1,2,4 and --runs a whole number');
  }
  const cases: ScaleCase[] = [];
  for (const count of workerCounts) {
    benchLog(`bench: cluster scale-out, ${count} worker(s), ${runs} runs`);
    cases.push(await measureClusterScale(count, runs));
  }
  const results: ScaleResults = {
    generatedAt: new Date().toISOString(),
    historyShards: NEW_CLUSTER_SHARDS,
    cpus: cpus().length,
    lifecycleMs: lifecycleMs(STANDARD_DURATIONS),
    cases,
  };
  const stem = runs >= 1000 ? 'cluster-scale' : 'cluster-scale-partial';
  const markdown = `${renderScaleMarkdown(results)}\n`;
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), markdown);
  process.stdout.write(`${markdown}\nwritten: bench/results/${stem}.json, ${stem}.md\n`);
}
