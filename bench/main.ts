// `npm run bench`: measures the seven figures, prints Markdown tables, and writes
// bench/results/bench.json, bench.md and bench.svg (bench-partial.* for partial runs).
//
//   node bench/build/bench/main.js [--quick] [--only=overhead,throughput,waits,history,cli,fleet,baseline]
//                                  [--sizes=100,500,1000] [--reps=3] [--throughput-samples=3]
//                                  [--no-long] [--no-stock]
//                                  [--fleet-sizes=10,100,1000] [--merge] [--eager-activities]
//                                  [--baseline-sizes=500,1000] [--baseline-fleet=1000]
//                                  [--baseline-parts=single,concurrent,fleet]
//
// --baseline-sizes: concurrent provisionings of figure 7 (tideline against a hand-written Temporal
// workflow); --baseline-fleet: its fleet size, 0 to leave the fleet case out; --baseline-parts:
// which of its cases run (with --merge, the others keep their saved rows).
//   node bench/build/bench/main.js --render     (tables and chart again from bench.json)
//   node bench/build/bench/main.js --merge-partial (bench-partial.json's figures into bench.json)
//   node bench/build/bench/main.js --cluster [--workers 1,2,4] [--runs 1000]
//                                  (scale-out on the native cluster: bench/cluster-scale.ts)
//
// --merge: a partial run replaces only the figures it measured in bench.json (and bench.md/svg),
// keeping the others, e.g. `npm run bench -- --only=fleet --merge`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import {
  measureBaselineOnServer,
  measureBaselineSizes,
  mergeBaseline,
  type BaselineOptions,
} from './baseline-figure';
import { measureCliStartup } from './cli-startup';
import { runClusterScale } from './cluster-scale';
import { FLEET_SIZES, measureFleet } from './fleet';
import { measureHistoryCost } from './history-cost';
import { measureOverhead, type OverheadCase } from './overhead';
import { startDevServer } from './lib/dev-server';
import { loadAverage } from './lib/proc-usage';
import { RESULTS_DIR } from './lib/repo';
import { judgeGoals } from './report/goals';
import { renderChart } from './report/chart';
import type { BaselineResults, BenchResults, MachineInfo } from './report/results';
import { renderMarkdown } from './report/tables';
import {
  DEMO_DURATIONS,
  LONG_DURATIONS,
  STANDARD_DURATIONS,
  TUNED_WORKER,
  TUNED_WORKER_NODE_ARGS,
  lifecycleMs,
} from './settings';
import {
  measureThroughput,
  medianWithSpread,
  type ThroughputOptions,
  type ThroughputResult,
} from './throughput';
import { measureWaitEconomy } from './wait-economy';

type BaselinePart = keyof BaselineResults;

const FIGURES = ['cli', 'overhead', 'throughput', 'waits', 'history', 'fleet', 'baseline'] as const;
type Figure = (typeof FIGURES)[number];

interface Options {
  figures: Set<Figure>;
  /** Everything at full size: only then are bench.json/md/svg replaced. */
  full: boolean;
  sizes: number[];
  repetitions: number;
  /** Figure 2: samples per case (each on a fresh dev server); the median is shown with the spread. */
  throughputSamples: number;
  long: boolean;
  stock: boolean;
  fleetSizes: number[];
  /** Figure 7: its cases, concurrent sizes and fleet size. */
  baseline: BaselineOptions;
  merge: boolean;
}

function parseOptions(argv: string[]): Options {
  const flag = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
  const quick = argv.includes('--quick');
  const only = flag('only')?.split(',') as Figure[] | undefined;
  for (const figure of only ?? []) if (!FIGURES.includes(figure)) throw new Error(`unknown figure ${figure}`);
  const full =
    !quick &&
    only === undefined &&
    !argv.some((arg) => /^--(sizes|fleet-sizes|baseline-|reps|throughput-|no-|merge|eager)/.test(arg));
  return {
    full,
    figures: new Set(only ?? FIGURES),
    sizes: (flag('sizes') ?? (quick ? '100' : '100,500,1000')).split(',').map(Number),
    repetitions: Number(flag('reps') ?? (quick ? 1 : 3)),
    throughputSamples: Number(flag('throughput-samples') ?? 1),
    long: !quick && !argv.includes('--no-long'),
    stock: !quick && !argv.includes('--no-stock'),
    fleetSizes: flag('fleet-sizes')?.split(',').map(Number) ?? (quick ? [10, 100] : FLEET_SIZES),
    baseline: {
      parts: new Set((flag('baseline-parts') ?? 'single,concurrent,fleet').split(',') as BaselinePart[]),
      sizes: (flag('baseline-sizes') ?? (quick ? '20' : '500,1000')).split(',').map(Number),
      fleet: Number(flag('baseline-fleet') ?? (quick ? 40 : 1000)),
      repetitions: Number(flag('reps') ?? (quick ? 1 : 3)),
    },
    merge: argv.includes('--merge'),
  };
}

function machine(loadAverageStart: number[]): MachineInfo {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.versions.node,
    platform: `${process.platform} ${process.arch}`,
    loadAverageStart,
    loadAverageEnd: loadAverage(),
  };
}

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

async function main(): Promise<void> {
  if (process.argv.includes('--render')) return renderAgain();
  if (process.argv.includes('--merge-partial')) return mergePartial();
  // Scale-out on the native cluster (bench/cluster-scale.ts): `--cluster --workers 1,2,4 [--runs N]`.
  if (process.argv.includes('--cluster')) return runClusterScale(process.argv.slice(2));
  const options = parseOptions(process.argv.slice(2));
  const began = Date.now();
  const loadStart = loadAverage();
  const baseline: BaselineResults = { single: [], concurrent: [], fleet: [] };
  const results: Omit<BenchResults, 'goals' | 'machine' | 'durationSeconds'> = {
    generatedAt: new Date().toISOString(),
    overhead: [],
    throughput: [],
    waits: [],
    history: [],
    cli: null,
    fleet: [],
    ...(options.figures.has('baseline') ? { baseline } : {}),
  };

  if (options.figures.has('cli')) {
    log('5. CLI start-up');
    results.cli = measureCliStartup(options.repetitions >= 3 ? 15 : 5);
  }
  // --eager-activities: the server hands an activity scheduled by a workflow task straight to the
  // worker that completed it (off in Temporal's defaults), to measure what that saves.
  const serverOptions = process.argv.includes('--eager-activities')
    ? { dynamicConfig: { 'system.enableActivityEagerExecution': true } }
    : {};
  const server = await startDevServer(serverOptions);
  try {
    if (options.figures.has('overhead')) {
      const cases: OverheadCase[] = [
        { label: 'standard', durations: STANDARD_DURATIONS },
        { label: 'demo pace', durations: DEMO_DURATIONS },
        // Not a goal row: what polling 4× as often (`interval: 250ms` on the waits) buys and costs.
        { label: 'demo pace, waits at 250 ms', durations: DEMO_DURATIONS, waitIntervalMs: 250 },
      ];
      for (const overheadCase of cases) {
        log(`1. overhead, ${overheadCase.label} lifecycle, ${options.repetitions} repetition(s)`);
        results.overhead.push(await measureOverhead(server, overheadCase, options.repetitions));
      }
    }
    if (options.figures.has('history')) {
      log('4. history cost');
      results.history = await measureHistoryCost(server);
    }
    if (options.figures.has('fleet')) {
      log(`6. fleet, ${options.fleetSizes.join(' / ')} services`);
      results.fleet = await measureFleet(server, options.fleetSizes);
    }
    if (results.baseline) await measureBaselineOnServer(server, options.baseline, results.baseline, log);
  } finally {
    await server.stop();
  }
  if (options.figures.has('waits')) {
    log('3. waits');
    results.waits = await measureWaitEconomy();
  }
  if (options.figures.has('throughput')) {
    // The lower bound: the 100 ms polling script at the same durations (figure 1), or the
    // lifecycle plus the script's measured overhead when figure 1 was not run.
    const standard = results.overhead.find((o) => o.label === 'standard');
    const scriptExtraMs = standard ? standard.scriptMs - lifecycleMs(STANDARD_DURATIONS) : 400;
    const cases: ThroughputOptions[] = options.sizes.map((runs) => ({
      label: 'tuned, 30 s lifecycle',
      runs,
      durations: STANDARD_DURATIONS,
      lowerBoundMs: lifecycleMs(STANDARD_DURATIONS) + scriptExtraMs,
      tuning: TUNED_WORKER,
      workerNodeArgs: TUNED_WORKER_NODE_ARGS,
    }));
    if (options.stock) {
      const runs = Math.min(500, Math.max(...options.sizes));
      cases.push({
        label: 'stock, 30 s lifecycle',
        runs,
        durations: STANDARD_DURATIONS,
        lowerBoundMs: lifecycleMs(STANDARD_DURATIONS) + scriptExtraMs,
      });
    }
    if (options.long) {
      const longCase = {
        runs: Math.max(...options.sizes),
        durations: LONG_DURATIONS,
        lowerBoundMs: lifecycleMs(LONG_DURATIONS) + scriptExtraMs,
      };
      cases.push({
        ...longCase,
        label: 'tuned, 5 min lifecycle',
        tuning: TUNED_WORKER,
        workerNodeArgs: TUNED_WORKER_NODE_ARGS,
      });
      // The SDK's 100 activity slots against 1,000 waits of minutes (cut off at 2.5 × the bound).
      if (options.stock) {
        cases.push({ ...longCase, label: 'stock, 5 min lifecycle', timeoutMs: longCase.lowerBoundMs * 2.5 });
      }
    }
    for (const throughputCase of cases) {
      const samples: ThroughputResult[] = [];
      for (let sample = 1; sample <= options.throughputSamples; sample++) {
        log(
          `2. throughput, ${throughputCase.runs} runs, ${throughputCase.label} (sample ${sample} of ${options.throughputSamples})`,
        );
        // A fresh dev server per sample: earlier runs' histories do not weigh on later ones.
        const caseServer = await startDevServer(serverOptions);
        try {
          samples.push(await measureThroughput(caseServer, throughputCase));
        } finally {
          await caseServer.stop();
        }
      }
      results.throughput.push(medianWithSpread(samples));
    }
  }

  if (results.baseline) await measureBaselineSizes(options.baseline, results.baseline, log);

  const complete: Omit<BenchResults, 'goals'> = {
    ...results,
    durationSeconds: Math.round((Date.now() - began) / 1000),
    machine: machine(loadStart),
  };
  if (options.merge) return writeResults(mergeIntoSaved(complete, options.figures), 'bench');
  // Partial runs (--quick, --only, …) do not replace the committed full results.
  writeResults(complete, options.full ? 'bench' : 'bench-partial');
}

function readSaved(): BenchResults {
  return JSON.parse(readFileSync(path.join(RESULTS_DIR, 'bench.json'), 'utf8')) as BenchResults;
}

/** The saved full results with the figures this run measured replaced by the new ones. */
function mergeIntoSaved(
  measured: Omit<BenchResults, 'goals'>,
  figures: ReadonlySet<Figure>,
): Omit<BenchResults, 'goals'> {
  const { goals: _goals, ...saved } = readSaved();
  const merged: Omit<BenchResults, 'goals'> = { ...saved };
  if (figures.has('overhead')) merged.overhead = measured.overhead;
  if (figures.has('throughput')) merged.throughput = measured.throughput;
  if (figures.has('waits')) merged.waits = measured.waits;
  if (figures.has('history')) merged.history = measured.history;
  if (figures.has('cli')) merged.cli = measured.cli;
  if (figures.has('fleet')) merged.fleet = measured.fleet ?? [];
  if (figures.has('baseline') && measured.baseline)
    merged.baseline = mergeBaseline(measured.baseline, saved.baseline);
  return merged;
}

function writeResults(complete: Omit<BenchResults, 'goals'>, stem: string): void {
  const final: BenchResults = { ...complete, goals: judgeGoals(complete) };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const markdown = renderMarkdown(final);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(final, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), markdown);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.svg`), renderChart(final));
  process.stdout.write(`${markdown}\nwritten: bench/results/${stem}.json, ${stem}.md, ${stem}.svg\n`);
}

/**
 * `--merge-partial`: the figures a partial run wrote to bench-partial.json replace those in
 * bench.json, measuring nothing (as `--merge` would have, had the partial run been given it).
 */
function mergePartial(): void {
  const { goals: _goals, ...partial } = JSON.parse(
    readFileSync(path.join(RESULTS_DIR, 'bench-partial.json'), 'utf8'),
  ) as BenchResults;
  const measured = new Set<Figure>(
    FIGURES.filter((figure) => {
      if (figure === 'cli') return partial.cli !== null;
      if (figure === 'baseline') return partial.baseline !== undefined;
      return (partial[figure]?.length ?? 0) > 0;
    }),
  );
  writeResults(mergeIntoSaved(partial, measured), 'bench');
}

/** `--render`: the tables, goals and chart again from bench/results/bench.json, measuring nothing. */
function renderAgain(): void {
  const { goals: _goals, ...complete } = readSaved();
  writeResults(complete, 'bench');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  // An entry point: whatever a failed figure left open must not keep the process alive.
  process.exit(1);
});
