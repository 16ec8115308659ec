// The Temporal server of the native cluster: one process running all four services (frontend,
// history, matching, worker) on the cluster's loopback ports, detached so it outlives the CLI,
// output appended to <dir>/server/server.log. Ready once the frontend answers GetSystemInfo.
import { Connection } from '@temporalio/client';
import { CliError } from '../errors';
import { PASSWORD_ENV, serverMarker, writeServerConfig } from './server-config';
import { isOurProcess, logTail, spawnDaemon, terminate, waitFor } from './processes';
import { busyPorts, type ClusterPaths, type ClusterState } from './state';

export function frontendAddress(state: ClusterState): string {
  return `127.0.0.1:${state.ports.frontend}`;
}

/** The server's pid while it runs (its command line names this cluster's config directory). */
export function serverPid(paths: ClusterPaths, state: ClusterState): number | undefined {
  return isOurProcess(state.pids.server, serverMarker(paths)) ? state.pids.server : undefined;
}

async function answers(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 2_000 });
    await connection.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/** Waits until the frontend answers; fails early when the process exits. */
export async function waitForFrontend(
  paths: ClusterPaths,
  state: ClusterState,
  pid: number,
  timeoutMs = 180_000,
): Promise<void> {
  const address = frontendAddress(state);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isOurProcess(pid, serverMarker(paths))) {
      throw new CliError(
        'CLUSTER_START_FAILED',
        `the Temporal server exited while starting; the end of ${paths.serverLog}:\n${logTail(paths.serverLog)}`,
      );
    }
    if (await answers(address)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new CliError(
    'CLUSTER_START_FAILED',
    `the Temporal server did not answer on ${address} within ${timeoutMs / 1000} s; the end of ${paths.serverLog}:\n${logTail(paths.serverLog)}`,
  );
}

/** Starts the server unless it runs; returns its pid once the frontend answers. */
export async function startServer(
  paths: ClusterPaths,
  state: ClusterState,
  serverBinary: string,
): Promise<number> {
  const running = serverPid(paths, state);
  if (running !== undefined) {
    await waitForFrontend(paths, state, running);
    return running;
  }
  const busy = await busyPorts(state.ports, ['postgres', 'ui']);
  if (busy.length > 0) {
    throw new CliError(
      'CLUSTER_START_FAILED',
      `ports of this cluster are taken by something else: ${busy.join(', ')}`,
      'stop what uses them, or use another --dir (a new cluster picks new free ports)',
    );
  }
  const args = writeServerConfig(paths, state);
  const pid = spawnDaemon(serverBinary, args, {
    logFile: paths.serverLog,
    cwd: paths.dir,
    env: { ...process.env, [PASSWORD_ENV]: state.postgres.password },
  });
  try {
    await waitForFrontend(paths, state, pid);
  } catch (error) {
    await terminate(pid, serverMarker(paths), 'SIGKILL');
    throw error;
  }
  return pid;
}

/** Stops the server: SIGTERM (graceful) or SIGKILL (a crash); resolves once it is gone. */
export async function stopServer(
  paths: ClusterPaths,
  state: ClusterState,
  signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM',
): Promise<boolean> {
  const pid = serverPid(paths, state);
  if (pid === undefined) return false;
  await terminate(pid, serverMarker(paths), signal, 30_000);
  return waitFor(() => !isOurProcess(pid, serverMarker(paths)), 1_000);
}
