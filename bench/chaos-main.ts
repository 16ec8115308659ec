// `npm run bench:chaos`: two chaos rounds of provision-production-service runs under injected API
// faults — round one SIGKILLs the worker at random moments, round two restarts the Temporal dev
// server on its database file — and a third round that cancels provision-production-service and
// fork-and-promote runs at random moments (also while a call is in flight) and audits the local
// cloud after each; then prints tables and writes bench/results/chaos.json / .md.
//
//   node bench/build/bench/chaos-main.js [--runs=50] [--quick] [--cancels=60]
//       the dev-server rounds and the cancel round; a full run keeps the saved cluster rounds
//   node bench/build/bench/chaos-main.js --cancel-round [--cancels=60] [--cancel-seed=N]
//       the cancel round alone (kept next to the saved disruption rounds in chaos.json);
//       --cancel-case=I [--cancel-run-ms=P,F] makes one case of a round again (chaos-partial.*)
//   node bench/build/bench/chaos-main.js --cluster [--runs=50] [--quick]
//       the worker-kill / server-kill / PostgreSQL-stop rounds against the native cluster
//       (bench/cluster-chaos.ts), saved next to the dev-server rounds
//   node bench/build/bench/chaos-main.js --render    (tables again from chaos.json)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { CHAOS_FAULTS, runChaosRound, type RoundOptions, type RoundResult } from './chaos/campaign';
import { runCancelRound, type CancelRoundOptions, type CancelRoundResult } from './chaos/cancel-round';
import { renderChaosMarkdown } from './chaos/report';
import {
  CLUSTER_WORKERS,
  isClusterRound,
  keepSavedClusterRounds,
  mergeClusterRounds,
  runClusterRounds,
} from './cluster-chaos';
import { loadAverage } from './lib/proc-usage';
import { RESULTS_DIR } from './lib/repo';

export interface ChaosResults {
  generatedAt: string;
  machine: { cpus: number; loadAverageStart: number[]; loadAverageEnd: number[] };
  faults: typeof CHAOS_FAULTS;
  rounds: RoundResult[];
  /** The cancel round (it carries its own date: it may be run alone, after the other rounds). */
  cancelRound?: CancelRoundResult;
  /** When the native-cluster rounds (`--cluster`, bench/cluster-chaos.ts) ran, and the load then. */
  cluster?: { generatedAt: string; workers: number; loadAverageStart: number[]; loadAverageEnd: number[] };
}

/** The cancel round's local cloud: quick lifecycles, so 50+ runs stay a few minutes of CPU. */
const CANCEL_DURATIONS = {
  queued: 300,
  configuring: 900,
  vpcAttach: 700,
  vpcDetach: 500,
  pooler: 500,
  pausing: 400,
  resuming: 400,
  deleting: 500,
};
const DEFAULT_CANCEL_SEED = 9_001;

function flag(argv: string[], name: string): string | undefined {
  return argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
}

export function cancelRoundOptions(argv: string[], quick: boolean): CancelRoundOptions {
  const only = flag(argv, 'cancel-case');
  const runMs = flag(argv, 'cancel-run-ms')?.split(',').map(Number);
  return {
    cancels: Number(flag(argv, 'cancels') ?? (quick ? 6 : 60)),
    seed: Number(flag(argv, 'cancel-seed') ?? DEFAULT_CANCEL_SEED),
    durations: CANCEL_DURATIONS,
    ...(only !== undefined ? { only: Number(only) } : {}),
    ...(runMs?.length === 2
      ? { runMs: { 'provision-production-service': runMs[0]!, 'fork-and-promote': runMs[1]! } }
      : {}),
  };
}

/** Rounds for `runs` runs: starts spread over a minute, three disruptions 35 s or more apart. */
export function chaosRounds(runs: number, quick: boolean): RoundOptions[] {
  const base = {
    runs,
    doomed: Math.max(1, Math.round(runs / 5)),
    startWindowMs: quick ? 3_000 : 60_000,
    jitterMs: quick ? 1_000 : 10_000,
    durations: { queued: 1_000, configuring: 5_000, vpcAttach: 5_000, pooler: 3_000, deleting: 3_000 },
    seed: 4_242,
    timeoutMs: 15 * 60_000,
  };
  return [
    { ...base, disruption: 'worker-kill', disruptAtMs: quick ? [4_000] : [8_000, 48_000, 88_000] },
    { ...base, disruption: 'server-restart', disruptAtMs: quick ? [4_000] : [8_000, 48_000, 88_000] },
  ];
}

function write(results: ChaosResults, stem: string): void {
  const markdown = `${renderChaosMarkdown(results.rounds, results.cancelRound)}\n`;
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), markdown);
  process.stdout.write(`${markdown}\nwritten: bench/results/${stem}.json, ${stem}.md\n`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--render')) {
    // The tables again from bench/results/chaos.json, running nothing.
    const saved = JSON.parse(readFileSync(path.join(RESULTS_DIR, 'chaos.json'), 'utf8')) as ChaosResults;
    return write(saved, 'chaos');
  }
  const quick = argv.includes('--quick');
  const loadAverageStart = loadAverage();
  const cancelOptions = cancelRoundOptions(argv, quick);
  const fullCancelRound = cancelOptions.only === undefined && cancelOptions.cancels >= 50;
  if (argv.includes('--cancel-round')) {
    process.stderr.write(`chaos: round cancel-at-random-moments, ${cancelOptions.cancels} cancels\n`);
    const cancelRound = await runCancelRound(cancelOptions);
    // Kept next to the disruption rounds saved last time (they keep their own date).
    const savedFile = path.join(RESULTS_DIR, 'chaos.json');
    const saved =
      fullCancelRound && existsSync(savedFile)
        ? (JSON.parse(readFileSync(savedFile, 'utf8')) as ChaosResults)
        : undefined;
    write(
      saved
        ? { ...saved, cancelRound }
        : {
            generatedAt: new Date().toISOString(),
            machine: { cpus: cpus().length, loadAverageStart, loadAverageEnd: loadAverage() },
            faults: CHAOS_FAULTS,
            rounds: [],
            cancelRound,
          },
      fullCancelRound ? 'chaos' : 'chaos-partial',
    );
    if (cancelRound.orphans > 0 || cancelRound.notRestored > 0) process.exitCode = 1;
    return;
  }
  const runs = Number(argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? (quick ? 6 : 50));
  if (argv.includes('--cluster')) {
    // The same rounds against the native cluster, saved next to the dev-server rounds.
    const fresh = await runClusterRounds(chaosRounds(runs, quick)[0]!);
    const full = !quick && runs === 50;
    const savedFile = path.join(RESULTS_DIR, 'chaos.json');
    const saved = existsSync(savedFile)
      ? (JSON.parse(readFileSync(savedFile, 'utf8')) as ChaosResults)
      : undefined;
    const machine = { cpus: cpus().length, loadAverageStart, loadAverageEnd: loadAverage() };
    const cluster = { generatedAt: new Date().toISOString(), workers: CLUSTER_WORKERS, ...machine };
    write(
      full && saved
        ? { ...saved, rounds: mergeClusterRounds(saved.rounds, fresh), cluster }
        : { generatedAt: cluster.generatedAt, machine, faults: CHAOS_FAULTS, rounds: fresh, cluster },
      full ? 'chaos' : 'chaos-partial',
    );
    if (!fresh.every((r) => r.duplicates === 0 && r.orphans === 0 && r.completedAsPlanned === r.runs))
      process.exitCode = 1;
    return;
  }
  const rounds: RoundResult[] = [];
  for (const round of chaosRounds(runs, quick)) {
    process.stderr.write(`chaos: round ${round.disruption}, ${round.runs} runs\n`);
    rounds.push(await runChaosRound(round));
  }
  process.stderr.write(`chaos: round cancel-at-random-moments, ${cancelOptions.cancels} cancels\n`);
  const cancelRound = await runCancelRound(cancelOptions);
  const full = !quick && runs === 50 && fullCancelRound;
  // A full campaign replaces the dev-server rounds; the native-cluster rounds (`--cluster`, run
  // apart) saved in chaos.json stay next to them, with their own date.
  const savedFile = path.join(RESULTS_DIR, 'chaos.json');
  const saved =
    full && existsSync(savedFile) ? (JSON.parse(readFileSync(savedFile, 'utf8')) as ChaosResults) : undefined;
  const results: ChaosResults = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, loadAverageStart, loadAverageEnd: loadAverage() },
    faults: CHAOS_FAULTS,
    rounds: saved ? keepSavedClusterRounds(saved.rounds, rounds) : rounds,
    cancelRound,
    ...(saved?.cluster !== undefined && saved.rounds.some(isClusterRound) ? { cluster: saved.cluster } : {}),
  };
  write(results, full ? 'chaos' : 'chaos-partial');
  const clean =
    rounds.every((r) => r.duplicates === 0 && r.orphans === 0 && r.completedAsPlanned === r.runs) &&
    cancelRound.orphans === 0 &&
    cancelRound.notRestored === 0;
  if (!clean) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  // An entry point: whatever a failed round left open must not keep the process alive.
  process.exit(1);
});
