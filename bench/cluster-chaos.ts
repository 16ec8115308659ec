// `npm run bench:chaos -- --cluster`: the chaos campaign (bench/chaos/campaign.ts, same runs, same
// API faults) against the native cluster (`tideline cluster`: the pinned Temporal server on
// PostgreSQL) with three worker processes, in three rounds: a worker SIGKILLed (and started again),
// the server SIGKILLed (and brought back by `cluster up`), PostgreSQL stopped for 20 s (and started
// again). The rounds are saved next to the dev-server rounds in bench/results/chaos.json.
import { stopClusterPostgres, stopClusterServer } from '../cluster/cluster';
import type { Disruption, RoundOptions, RoundResult, RoundTarget } from './chaos/campaign';
import { runChaosRound } from './chaos/campaign';
import { benchLog, startBenchCluster } from './cluster-server';
import type { BenchStack } from './lib/stack';
import { sleep } from './lib/stats';
import type { WorkerProcess } from './lib/worker-process';

export const CLUSTER_WORKERS = 3;
export const POSTGRES_OUTAGE_MS = 20_000;
const CLUSTER_DISRUPTIONS: Disruption[] = [
  'cluster-worker-kill',
  'cluster-server-kill',
  'cluster-postgres-stop',
];

/** A fresh cluster in a temporary directory, its workers, and the round's disruption. */
export async function clusterTarget(
  disruption: Disruption,
  workerCount = CLUSTER_WORKERS,
): Promise<RoundTarget> {
  const cluster = await startBenchCluster('cluster-chaos');
  const { dir } = cluster;
  const workers: WorkerProcess[] = [];
  let next = 0;
  // The stack's server is the cluster's (`server` below), so its workers poll the cluster.
  const start = (stack: BenchStack): Promise<WorkerProcess> => stack.startWorker();
  return {
    server: cluster.server,
    async startWorkers(stack) {
      workers.push(...(await Promise.all(Array.from({ length: workerCount }, () => start(stack)))));
    },
    async disrupt(stack) {
      if (disruption === 'cluster-worker-kill') {
        const index = next++ % workers.length;
        await workers[index]!.kill();
        workers[index] = await start(stack);
      } else if (disruption === 'cluster-server-kill') {
        await stopClusterServer(dir, 'SIGKILL');
        await cluster.up();
      } else {
        await stopClusterPostgres(dir);
        await sleep(POSTGRES_OUTAGE_MS);
        await cluster.up();
      }
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.stop()));
      await cluster.close();
    },
  };
}

/** The campaign's rounds (same runs, timing and faults), each against its own cluster. */
export function clusterRounds(base: RoundOptions): RoundOptions[] {
  return CLUSTER_DISRUPTIONS.map((disruption) => ({
    ...base,
    disruption,
    target: () => clusterTarget(disruption),
  }));
}

export async function runClusterRounds(base: RoundOptions): Promise<RoundResult[]> {
  const results: RoundResult[] = [];
  for (const round of clusterRounds(base)) {
    benchLog(`chaos: round ${round.disruption} (${CLUSTER_WORKERS} workers), ${round.runs} runs`);
    results.push(await runChaosRound(round));
  }
  return results;
}

export function isClusterRound(round: RoundResult): boolean {
  return round.disruption.startsWith('cluster-');
}

/** Saved rounds with the cluster's rounds replaced by `fresh` (the dev-server rounds are kept). */
export function mergeClusterRounds(saved: RoundResult[], fresh: RoundResult[]): RoundResult[] {
  return [...saved.filter((round) => !isClusterRound(round)), ...fresh];
}

/** Fresh dev-server rounds, followed by the cluster rounds saved last time (they are not rerun). */
export function keepSavedClusterRounds(saved: RoundResult[], fresh: RoundResult[]): RoundResult[] {
  return [...fresh.filter((round) => !isClusterRound(round)), ...saved.filter(isClusterRound)];
}
