// `npm run bench:chaos`: two chaos rounds of provision-production-service runs under injected API
// faults — round one SIGKILLs the worker at random moments, round two restarts the Temporal dev
// server on its database file — then prints a table and writes bench/results/chaos.json / .md.
//
//   node bench/build/bench/chaos-main.js [--runs=50] [--quick]
//   node bench/build/bench/chaos-main.js --render    (tables again from chaos.json)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { CHAOS_FAULTS, runChaosRound, type RoundOptions, type RoundResult } from './chaos/campaign';
import { renderChaosMarkdown } from './chaos/report';
import { loadAverage } from './lib/proc-usage';
import { RESULTS_DIR } from './lib/repo';

export interface ChaosResults {
  generatedAt: string;
  machine: { cpus: number; loadAverageStart: number[]; loadAverageEnd: number[] };
  faults: typeof CHAOS_FAULTS;
  rounds: RoundResult[];
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
  const markdown = `${renderChaosMarkdown(results.rounds)}\n`;
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
  const runs = Number(argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? (quick ? 6 : 50));
  const loadAverageStart = loadAverage();
  const rounds: RoundResult[] = [];
  for (const round of chaosRounds(runs, quick)) {
    process.stderr.write(`chaos: round ${round.disruption}, ${round.runs} runs\n`);
    rounds.push(await runChaosRound(round));
  }
  const results: ChaosResults = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, loadAverageStart, loadAverageEnd: loadAverage() },
    faults: CHAOS_FAULTS,
    rounds,
  };
  write(results, quick || runs !== 50 ? 'chaos-partial' : 'chaos');
  const clean = rounds.every((r) => r.duplicates === 0 && r.orphans === 0 && r.completedAsPlanned === r.runs);
  if (!clean) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  // An entry point: whatever a failed round left open must not keep the process alive.
  process.exit(1);
});
