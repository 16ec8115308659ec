// A native cluster (`tideline cluster`) in a temporary directory, seen by the benchmarks as their
// Temporal server (the DevServer interface: address, pid, start, stop), plus the pids of its
// PostgreSQL and server processes for /proc sampling. close() stops it and removes the directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clusterDown, clusterStatus, clusterUp, type ClusterInfo } from '../cluster/cluster';
import { stopClusterServer } from '../cluster/cluster';
import type { DevServer } from './lib/dev-server';

export interface BenchCluster {
  dir: string;
  info: ClusterInfo;
  server: DevServer;
  /** The running processes' pids right now (they change when a disruption restarts one). */
  pids(): ClusterInfo['pids'];
  /** `tideline cluster up` again: starts whatever is down and waits until the namespace is usable. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export const benchLog = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

export async function startBenchCluster(label: string): Promise<BenchCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), `tideline-${label}-`));
  const up = async (): Promise<ClusterInfo> => clusterUp({ dir, log: benchLog, webUi: false }); // as measured: no Web UI
  let info: ClusterInfo;
  try {
    info = await up();
  } catch (error) {
    await clusterDown(dir).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    info,
    server: {
      address: info.address,
      pid: () => clusterStatus(dir).pids.server ?? 0,
      start: async () => {
        await up();
      },
      stop: async () => {
        await stopClusterServer(dir, 'SIGTERM');
      },
    },
    pids: () => clusterStatus(dir).pids,
    up: async () => {
      await up();
    },
    async close() {
      await clusterDown(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
