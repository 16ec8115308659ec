// `npm run bench:local-cloud`: what durable answers cost. Service creates per second against the
// local cloud (dist/local-cloud/main.js, a real process) in memory and with --state-file, where
// every answer waits for its change to be fsync'd (group commit, local-cloud/persistence.ts), at a
// few client concurrencies and state sizes (a commit rewrites the whole state). Prints a Markdown
// table and writes bench/results/local-cloud.json and .md.
//
//   node bench/build/bench/local-cloud-durability.js [--seconds=5] [--concurrency=1,16,64]
//                                                    [--preload=0,2000]
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { REPO_ROOT, RESULTS_DIR } from './lib/repo';

const LOCAL_CLOUD_ENTRY = path.join(REPO_ROOT, 'dist', 'local-cloud', 'main.js');

interface Row {
  storage: 'in memory' | 'state file';
  concurrency: number;
  /** Services in the cloud before the timed creates. */
  preload: number;
  creates: number;
  seconds: number;
  createsPerSecond: number;
  /** Median and 99th percentile answer time of a create, ms. */
  p50Ms: number;
  p99Ms: number;
}

interface Cloud {
  child: ChildProcessWithoutNullStreams;
  servicesUrl: string;
  authorization: string;
}

async function startCloud(stateFile: string | undefined): Promise<Cloud> {
  const args = ['--port', '0', '--time-scale', '1', ...(stateFile ? ['--state-file', stateFile] : [])];
  const child = spawn(process.execPath, [LOCAL_CLOUD_ENTRY, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the local cloud exited (${code}) before its first line`)));
  });
  const first = JSON.parse(line) as {
    url: string;
    projects: Array<{ id: string; access_key: string; secret_key: string }>;
  };
  const project = first.projects[0]!;
  const key = Buffer.from(`${project.access_key}:${project.secret_key}`).toString('base64');
  return {
    child,
    servicesUrl: `${first.url}/projects/${project.id}/services`,
    authorization: `Basic ${key}`,
  };
}

async function stopCloud(cloud: Cloud): Promise<void> {
  const exited = new Promise((resolve) => cloud.child.once('exit', resolve));
  cloud.child.kill('SIGTERM');
  await exited;
}

async function create(cloud: Cloud, agent: Agent, name: string): Promise<void> {
  const answer = await request(cloud.servicesUrl, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: cloud.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  await answer.body.text();
  if (answer.statusCode !== 202) throw new Error(`create answered ${answer.statusCode}`);
}

/** `concurrency` clients create services back to back until `untilMs`; returns each answer's time. */
async function load(cloud: Cloud, concurrency: number, untilMs: number, prefix: string): Promise<number[]> {
  const agent = new Agent({ connections: concurrency });
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      for (let n = 0; Date.now() < untilMs; n++) {
        const began = performance.now();
        await create(cloud, agent, `${prefix}-${client}-${n}`);
        times.push(performance.now() - began);
      }
    }),
  );
  await agent.close();
  return times;
}

async function preload(cloud: Cloud, count: number): Promise<void> {
  const agent = new Agent({ connections: 32 });
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < count) await create(cloud, agent, `pre-${next++}`);
    }),
  );
  await agent.close();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function measure(
  storage: Row['storage'],
  concurrency: number,
  preloaded: number,
  seconds: number,
): Promise<Row> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tideline-bench-local-cloud-'));
  const cloud = await startCloud(storage === 'state file' ? path.join(dir, 'state.json') : undefined);
  try {
    await preload(cloud, preloaded);
    await load(cloud, concurrency, Date.now() + 300, 'warm-up');
    const began = performance.now();
    const times = await load(cloud, concurrency, Date.now() + seconds * 1000, 'timed');
    const elapsed = (performance.now() - began) / 1000;
    const sorted = [...times].sort((a, b) => a - b);
    return {
      storage,
      concurrency,
      preload: preloaded,
      creates: times.length,
      seconds: Number(elapsed.toFixed(2)),
      createsPerSecond: Math.round(times.length / elapsed),
      p50Ms: Number(percentile(sorted, 0.5).toFixed(1)),
      p99Ms: Number(percentile(sorted, 0.99).toFixed(1)),
    };
  } finally {
    await stopCloud(cloud);
    rmSync(dir, { recursive: true, force: true });
  }
}

function markdown(rows: Row[]): string {
  const lines = [
    '| storage | clients | services before | creates/s | p50 ms | p99 ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.storage} | ${r.concurrency} | ${r.preload} | ${r.createsPerSecond} | ${r.p50Ms} | ${r.p99Ms} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const flag = (name: string) =>
    process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const seconds = Number(flag('seconds') ?? 5);
  const concurrencies = (flag('concurrency') ?? '1,16,64').split(',').map(Number);
  const preloads = (flag('preload') ?? '0,2000').split(',').map(Number);
  const rows: Row[] = [];
  for (const preloaded of preloads) {
    for (const concurrency of concurrencies) {
      for (const storage of ['in memory', 'state file'] as const) {
        process.stderr.write(`bench: ${storage}, ${concurrency} clients, ${preloaded} services before\n`);
        rows.push(await measure(storage, concurrency, preloaded, seconds));
      }
    }
  }
  const table = markdown(rows);
  process.stdout.write(table);
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.versions.node}`;
  const results = { generatedAt: new Date().toISOString(), machine, seconds, rows };
  writeFileSync(path.join(RESULTS_DIR, 'local-cloud.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(
    path.join(RESULTS_DIR, 'local-cloud.md'),
    `# Local cloud: creates per second, in memory vs --state-file\n\n${results.generatedAt}, ${machine}, ${seconds} s per row.\n\n${table}`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
