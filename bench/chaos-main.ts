// `npm run bench:chaos`: two chaos rounds of provision-production-service runs under injected API
// faults — round one SIGKILLs the worker at random moments, round two restarts the Temporal dev
// server on its database file — then prints a table and writes bench/results/chaos.json / .md.
//
//   node bench/build/bench/chaos-main.js [--runs=50] [--quick]
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { CHAOS_FAULTS, runChaosRound, type RoundOptions, type RoundResult } from './chaos/campaign';
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

function table(rounds: RoundResult[]): string {
  const header = [
    'round',
    'runs (doomed)',
    'ended as planned',
    'duplicates',
    'orphans',
    'disruptions',
    'recovery p50 / p95',
    'faults fired',
    'took',
  ];
  const rows = rounds.map((r) => [
    r.disruption,
    `${r.runs} (${r.doomed})`,
    `**${r.completedAsPlanned}/${r.runs}**`,
    `**${r.duplicates}**`,
    `**${r.orphans}**`,
    r.disruptions,
    `${(r.recoveryMs.p50 / 1000).toFixed(1)} s / ${(r.recoveryMs.p95 / 1000).toFixed(1)} s (n=${r.recoveryMs.count})`,
    Object.values(r.faultsFired).reduce((a, b) => a + b, 0),
    `${Math.round(r.roundMs / 1000)} s`,
  ]);
  const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
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
  const markdown =
    `${table(rounds)}\n\n` +
    rounds
      .filter((r) => r.unexpected.length || r.incomplete.length)
      .map(
        (r) => `${r.disruption}: unexpected ${r.unexpected.join('; ')} incomplete ${r.incomplete.join(', ')}`,
      )
      .join('\n');
  const stem = quick || runs !== 50 ? 'chaos-partial' : 'chaos';
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), `${markdown.trim()}\n`);
  process.stdout.write(`${markdown}\nwritten: bench/results/${stem}.json, ${stem}.md\n`);
  const clean = rounds.every((r) => r.duplicates === 0 && r.orphans === 0 && r.completedAsPlanned === r.runs);
  if (!clean) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  // An entry point: whatever a failed round left open must not keep the process alive.
  process.exit(1);
});
