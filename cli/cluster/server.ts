// The Temporal server of the native cluster on the cluster's loopback ports, detached so it
// outlives the CLI: one process running all four services (frontend, history, matching, worker),
// output appended to <dir>/server/server.log, or — serverProcesses `separate` — one process per
// service (`start --service NAME`), each with its own <dir>/server/NAME.log, as production runs
// them. Ready once the frontend answers GetSystemInfo. `up` starts whichever is down.
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { CliError } from '../errors';
import { PASSWORD_ENV, serverMarker, writeServerConfig } from './server-config';
import { isOurProcess, logTail, spawnDaemon, terminate, waitFor } from './processes';
import { busyPorts, type ClusterPaths, type ClusterPorts, type ClusterState } from './state';

/** In start order: the frontend and the worker service need history and matching in the ring. */
export const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];
type ServicePids = Partial<Record<ServiceName, number>>;

const SERVICE_PORTS: Record<ServiceName, ReadonlyArray<keyof ClusterPorts>> = {
  history: ['history', 'historyMembership'],
  matching: ['matching', 'matchingMembership'],
  frontend: ['frontend', 'frontendHttp', 'frontendMembership'],
  worker: ['worker', 'workerMembership'],
};

export function frontendAddress(state: ClusterState): string {
  return `127.0.0.1:${state.ports.frontend}`;
}

function serviceLog(paths: ClusterPaths, service: ServiceName): string {
  return path.join(path.dirname(paths.serverLog), `${service}.log`);
}

/** The single server process's pid while it runs (its command line names this cluster's root). */
export function serverPid(paths: ClusterPaths, state: ClusterState): number | undefined {
  return isOurProcess(state.pids.server, serverMarker(paths)) ? state.pids.server : undefined;
}

/** The service processes that run now (serverProcesses `separate`). */
export function servicePids(paths: ClusterPaths, state: ClusterState): ServicePids {
  const running: ServicePids = {};
  for (const service of SERVICES) {
    const pid = state.pids.services?.[service];
    if (isOurProcess(pid, serverMarker(paths))) running[service] = pid;
  }
  return running;
}

/** True when the whole server runs (every service process, when they are separate). */
export function serverRunning(paths: ClusterPaths, state: ClusterState): boolean {
  if (state.serverProcesses === 'one') return serverPid(paths, state) !== undefined;
  return Object.keys(servicePids(paths, state)).length === SERVICES.length;
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

/** Waits until the frontend answers; fails early when one of `pids` exits (with its log). */
export async function waitForFrontend(
  paths: ClusterPaths,
  state: ClusterState,
  pids: ReadonlyArray<{ pid: number; log: string }>,
  timeoutMs = 180_000,
): Promise<void> {
  const address = frontendAddress(state);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const exited = pids.find(({ pid }) => !isOurProcess(pid, serverMarker(paths)));
    if (exited !== undefined) {
      throw new CliError(
        'CLUSTER_START_FAILED',
        `the Temporal server exited while starting; the end of ${exited.log}:\n${logTail(exited.log)}`,
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

async function checkPorts(state: ClusterState, services: ReadonlyArray<ServiceName>): Promise<void> {
  const mine = services.flatMap((service) => SERVICE_PORTS[service]);
  const skip = (Object.keys(state.ports) as Array<keyof ClusterPorts>).filter((name) => !mine.includes(name));
  const busy = await busyPorts(state.ports, skip);
  if (busy.length > 0) {
    throw new CliError(
      'CLUSTER_START_FAILED',
      `ports of this cluster are taken by something else: ${busy.join(', ')}`,
      'stop what uses them, or use another --dir (a new cluster picks new free ports)',
    );
  }
}

/**
 * Starts the server, or the service processes that are down; resolves once the frontend answers
 * with the pids to record: `{ server }` for one process, `{ services }` for separate ones.
 */
export async function startServer(
  paths: ClusterPaths,
  state: ClusterState,
  serverBinary: string,
): Promise<Pick<ClusterState['pids'], 'server' | 'services'>> {
  const env = { ...process.env, [PASSWORD_ENV]: state.postgres.password };
  if (state.serverProcesses === 'one') {
    const running = serverPid(paths, state);
    if (running !== undefined) {
      await waitForFrontend(paths, state, [{ pid: running, log: paths.serverLog }]);
      return { server: running };
    }
    await checkPorts(state, SERVICES);
    const args = writeServerConfig(paths, state);
    const pid = spawnDaemon(serverBinary, args, { logFile: paths.serverLog, cwd: paths.dir, env });
    try {
      await waitForFrontend(paths, state, [{ pid, log: paths.serverLog }]);
    } catch (error) {
      await terminate(pid, serverMarker(paths), 'SIGKILL');
      throw error;
    }
    return { server: pid };
  }
  const services: ServicePids = servicePids(paths, state);
  const missing = SERVICES.filter((service) => services[service] === undefined);
  const started: Array<{ pid: number; log: string }> = [];
  if (missing.length > 0) {
    await checkPorts(state, missing);
    const args = writeServerConfig(paths, state);
    for (const service of missing) {
      const log = serviceLog(paths, service);
      const pid = spawnDaemon(serverBinary, [...args, '--service', service], {
        logFile: log,
        cwd: paths.dir,
        env,
      });
      services[service] = pid;
      started.push({ pid, log });
    }
  }
  try {
    await waitForFrontend(paths, state, started);
  } catch (error) {
    await Promise.all(started.map(({ pid }) => terminate(pid, serverMarker(paths), 'SIGKILL')));
    throw error;
  }
  return { services };
}

/** Stops the server (every service process): SIGTERM (graceful) or SIGKILL (a crash); resolves once gone. */
export async function stopServer(
  paths: ClusterPaths,
  state: ClusterState,
  signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM',
): Promise<boolean> {
  const pids = [serverPid(paths, state), ...Object.values(servicePids(paths, state))].filter(
    (pid): pid is number => pid !== undefined,
  );
  if (pids.length === 0) return false;
  await Promise.all(pids.map((pid) => terminate(pid, serverMarker(paths), signal, 30_000)));
  return waitFor(() => pids.every((pid) => !isOurProcess(pid, serverMarker(paths))), 1_000);
}

/** Stops one service process (serverProcesses `separate`; for tests and chaos). */
export async function stopService(
  paths: ClusterPaths,
  state: ClusterState,
  service: ServiceName,
  signal: 'SIGTERM' | 'SIGKILL' = 'SIGKILL',
): Promise<boolean> {
  const pid = servicePids(paths, state)[service];
  if (pid === undefined) return false;
  await terminate(pid, serverMarker(paths), signal, 30_000);
  return true;
}
