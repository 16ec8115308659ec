// The Temporal server of the native cluster on the cluster's loopback ports, detached so it
// outlives the CLI: one process running all four services (frontend, history, matching, worker),
// output appended to <dir>/server/server.log, or — serverProcesses `separate` — one process per
// service (`start --service NAME`), each with its own <dir>/server/NAME.log, as production runs
// them. One process is ready once the frontend answers GetSystemInfo; separate ones once every
// service serves (see waitForServices). `up` starts whichever is down.
import path from 'node:path';
import { StackError } from '../stack/stack-error';
import { PASSWORD_ENV, serverMarker, writeServerConfig } from './server-config';
import { isOurProcess, logTail, spawnDaemon, terminate, waitFor } from './processes';
import {
  answers,
  frontendAddress,
  PROBE_INTERVAL_MS,
  serviceProblem,
  startedProblem,
} from './service-readiness';
import { SERVICES, type ServiceName } from './services';
import { busyPorts, type ClusterPaths, type ClusterPorts, type ClusterState } from './state';
import { probeTls } from './tls';

export { frontendAddress } from './service-readiness';
export { SERVICES, type ServiceName };
type ServicePids = Partial<Record<ServiceName, number>>;

const SERVICE_PORTS: Record<ServiceName, ReadonlyArray<keyof ClusterPorts>> = {
  history: ['history', 'historyMembership'],
  matching: ['matching', 'matchingMembership'],
  frontend: ['frontend', 'frontendHttp', 'frontendMembership'],
  worker: ['worker', 'workerMembership'],
};

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

/** A server process `up` waits on: `name` says which in an error, `log` is where it writes. */
interface StartingProcess {
  name: string;
  pid: number;
  log: string;
}

/** Fails `up` at once when one of the processes it waits on has exited, with the end of its log. */
function failIfExited(paths: ClusterPaths, processes: ReadonlyArray<StartingProcess>): void {
  const exited = processes.find(({ pid }) => !isOurProcess(pid, serverMarker(paths)));
  if (exited === undefined) return;
  throw new StackError(
    'CLUSTER_START_FAILED',
    `the Temporal ${exited.name} (pid ${exited.pid}) exited while starting; the end of ${exited.log}:\n${logTail(exited.log)}`,
  );
}

/** Waits until the frontend of the single server process (`pid`) answers. */
async function waitForFrontend(
  paths: ClusterPaths,
  state: ClusterState,
  pid: number,
  timeoutMs = 180_000,
): Promise<void> {
  const address = frontendAddress(state);
  const tls = probeTls(paths, state);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    failIfExited(paths, [{ name: 'server', pid, log: paths.serverLog }]);
    if (await answers(address, tls)) return;
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
  throw new StackError(
    'CLUSTER_START_FAILED',
    `the Temporal server did not answer on ${address} within ${timeoutMs / 1000} s; the end of ${paths.serverLog}:\n${logTail(paths.serverLog)}`,
  );
}

/** How long `up` waits for separate service processes to start and serve (a cold start on a loaded machine included). */
const SERVICES_READY_TIMEOUT_MS = 240_000;

/**
 * Polls `problem` for each of `which` until none has one. Fails at once when a service process
 * exits (with the end of its log), and at `deadline` naming each service that is not ready and why.
 */
async function waitForServices(
  paths: ClusterPaths,
  services: ServicePids,
  which: ReadonlyArray<ServiceName>,
  problem: (service: ServiceName) => Promise<string | undefined>,
  deadline: number,
): Promise<void> {
  const timeoutS = Math.round(SERVICES_READY_TIMEOUT_MS / 1000);
  const processes = SERVICES.flatMap((service) => {
    const pid = services[service];
    return pid === undefined ? [] : [{ name: `${service} service`, pid, log: serviceLog(paths, service) }];
  });
  for (;;) {
    failIfExited(paths, processes);
    const problems = await Promise.all(
      which.map(async (service) => [service, await problem(service)] as const),
    );
    const pending = problems.filter(
      (entry): entry is readonly [ServiceName, string] => entry[1] !== undefined,
    );
    if (pending.length === 0) return;
    if (Date.now() > deadline) {
      const log = serviceLog(paths, pending[0]?.[0] ?? 'frontend');
      throw new StackError(
        'CLUSTER_START_FAILED',
        `the Temporal server did not serve within ${timeoutS} s: ${pending.map(([service, why]) => `${service}: ${why}`).join('; ')}; the end of ${log}:\n${logTail(log)}`,
        `every service logs to ${path.dirname(paths.serverLog)}/NAME.log`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
}

/**
 * Throws when a server process `up` relies on is gone (it can exit after it served, e.g. while the
 * namespace is set up): `up` must not print `running.server: false` and succeed.
 */
export function assertServerRunning(paths: ClusterPaths, state: ClusterState): void {
  if (serverRunning(paths, state)) return;
  const running = servicePids(paths, state);
  const gone: Array<{ name: string; log: string }> =
    state.serverProcesses === 'one'
      ? [{ name: 'server', log: paths.serverLog }]
      : SERVICES.filter((service) => running[service] === undefined).map((service) => ({
          name: `${service} service`,
          log: serviceLog(paths, service),
        }));
  const [first] = gone;
  throw new StackError(
    'CLUSTER_START_FAILED',
    `the Temporal ${gone.map(({ name }) => name).join(', ')} exited after it started${first === undefined ? '' : `; the end of ${first.log}:\n${logTail(first.log)}`}`,
    '`tideline cluster up` again starts what is down',
  );
}

async function checkPorts(state: ClusterState, services: ReadonlyArray<ServiceName>): Promise<void> {
  const mine = services.flatMap((service) => SERVICE_PORTS[service]);
  const skip = (Object.keys(state.ports) as Array<keyof ClusterPorts>).filter((name) => !mine.includes(name));
  const busy = await busyPorts(state.ports, skip);
  if (busy.length > 0) {
    throw new StackError(
      'CLUSTER_START_FAILED',
      `ports of this cluster are taken by something else: ${busy.join(', ')}`,
      'stop what uses them, or use another --dir (a new cluster picks new free ports)',
    );
  }
}

/**
 * Starts the server, or the service processes that are down; resolves with the pids to record
 * (`{ server }` for one process, `{ services }` for separate ones) once the frontend answers (one
 * process) or every service serves (separate ones).
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
      await waitForFrontend(paths, state, running);
      return { server: running };
    }
    await checkPorts(state, SERVICES);
    const args = writeServerConfig(paths, state);
    const pid = spawnDaemon(serverBinary, args, { logFile: paths.serverLog, cwd: paths.dir, env });
    try {
      await waitForFrontend(paths, state, pid);
    } catch (error) {
      await terminate(pid, serverMarker(paths), 'SIGKILL');
      throw error;
    }
    return { server: pid };
  }
  const services: ServicePids = servicePids(paths, state);
  const tls = probeTls(paths, state);
  const missing = SERVICES.filter((service) => services[service] === undefined);
  const startedAt: Partial<Record<ServiceName, number>> = {};
  const started: number[] = [];
  const deadline = Date.now() + SERVICES_READY_TIMEOUT_MS;
  try {
    if (missing.length > 0) {
      await checkPorts(state, missing);
      const args = writeServerConfig(paths, state);
      // One at a time, in SERVICES order, each once the one before got past its start-up: every
      // server process writes the cluster metadata record when there is none and the losers of
      // that race exit ("failed to initialize current cluster metadata"), and the services after
      // history and matching need them (the worker service also the frontend) to start.
      for (const [index, service] of missing.entries()) {
        const previous = missing[index - 1];
        if (previous !== undefined) {
          await waitForServices(paths, services, [previous], (s) => startedProblem(state, tls, s), deadline);
        }
        startedAt[service] = Date.now();
        const pid = spawnDaemon(serverBinary, [...args, '--service', service], {
          logFile: serviceLog(paths, service),
          cwd: paths.dir,
          env,
        });
        services[service] = pid;
        started.push(pid);
      }
    }
    // Every service, also those that ran already: `up` reports the server running only once all serve.
    await waitForServices(
      paths,
      services,
      SERVICES,
      (service) => serviceProblem(state, tls, service, startedAt[service]),
      deadline,
    );
  } catch (error) {
    await Promise.all(started.map((pid) => terminate(pid, serverMarker(paths), 'SIGKILL')));
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
