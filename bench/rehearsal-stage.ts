// MCP rehearsals, one stack each or kept for the session: wall time of provision-production-service
// rehearsed as an agent does (as planned, then with every enablePooler call rate-limited), each
// rehearsal on a test stack of its own (`rehearseRun`) against the same rehearsals on one
// `RehearsalStage` (the MCP server's, its stack started at the first). One sample per rehearsal;
// the order alternates between rounds. Rehearsals run from dist/, as the CLI does (its prebuilt
// workflow bundle: a worker in bench/build/ would bundle the workflows at every stack start).
//
// Run: npm run bench:rehearsals [-- --rounds=N]
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadedCase } from '../rehearsal/test-file-loader';
import { provisionRehearsal } from './lib/provision-rehearsal';
import { REPO_ROOT, RESULTS_DIR } from './lib/repo';
import { summarize, type Summary } from './lib/stats';

type Rehearsals = typeof import('../rehearsal/rehearse-run');
const rehearsals: Promise<Rehearsals> = import(path.join(REPO_ROOT, 'dist', 'rehearsal', 'rehearse-run.js'));

const TIMEOUT_MS = 120_000;
const POOLER_FAULT = { operation: 'service.enablePooler', kind: 'rateLimit', retryAfterSeconds: 0 };

function provisioning({ rehearsalCase }: Rehearsals, faults: unknown[]): LoadedCase {
  const check = rehearsalCase(provisionRehearsal(faults));
  if (!check.ok) throw new Error(check.problems.join('\n'));
  return check.testCase;
}

/** The agent's two rehearsals, as planned then faulted; ms of each. */
async function timed(rehearse: (testCase: LoadedCase) => Promise<{ status: string }>): Promise<number[]> {
  const loaded = await rehearsals;
  const times: number[] = [];
  for (const [faults, expected] of [
    [[], 'succeeded'],
    [[POOLER_FAULT], 'failed'],
  ] as const) {
    const started = performance.now();
    const outcome = await rehearse(provisioning(loaded, [...faults]));
    times.push(performance.now() - started);
    if (outcome.status !== expected) throw new Error(`a rehearsal ended ${outcome.status}, not ${expected}`);
  }
  return times;
}

async function ownStacks(): Promise<number[]> {
  const { rehearseRun } = await rehearsals;
  return timed((testCase) =>
    rehearseRun(testCase, { env: process.env, log: () => undefined, timeoutMs: TIMEOUT_MS }),
  );
}

async function keptStage(): Promise<number[]> {
  const { RehearsalStage } = await rehearsals;
  const stage = new RehearsalStage({ env: process.env, log: () => undefined });
  try {
    return await timed((testCase) => stage.rehearse(testCase, TIMEOUT_MS));
  } finally {
    await stage.close();
  }
}

async function main(): Promise<void> {
  const rounds = Number(/^--rounds=(\d+)$/.exec(process.argv[2] ?? '')?.[1] ?? 3);
  const own: number[][] = [];
  const kept: number[][] = [];
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) {
      own.push(await ownStacks());
      kept.push(await keptStage());
    } else {
      kept.push(await keptStage());
      own.push(await ownStacks());
    }
  }
  const row = (label: string, samples: number[][], index: number): [string, Summary] => [
    label,
    summarize(
      samples.map((pair) => (pair[index] ?? Number.NaN) / 1000),
      1,
    ),
  ];
  const rows = [
    row('first rehearsal, own stack', own, 0),
    row('second rehearsal, own stack', own, 1),
    row('first rehearsal, kept stage', kept, 0),
    row('second rehearsal, kept stage', kept, 1),
  ];
  const md = [
    `# MCP rehearsals: one stack each or one kept for the session (${new Date().toISOString().slice(0, 10)})`,
    '',
    `provision-production-service, as planned then with enablePooler rate-limited; ${rounds} rounds, order alternating.`,
    '',
    '| rehearsal | min s | median s | max s |',
    '| --- | --: | --: | --: |',
    ...rows.map(([label, s]) => `| ${label} | ${s.min} | ${s.p50} | ${s.max} |`),
    '',
  ].join('\n');
  writeFileSync(path.join(RESULTS_DIR, 'rehearsal-stage.md'), md);
  process.stdout.write(md);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
