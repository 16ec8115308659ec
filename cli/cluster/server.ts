// The Temporal server of the native cluster on the cluster's loopback ports, detached so it
// outlives the CLI: one process running all four services (frontend, history, matching, worker),
// output appended to <dir>/server/server.log, or — serverProcesses `separate` — one process per
// service (`start --service NAME`), each with its own <dir>/server/NAME.log, as production runs
// them. One process is ready once the frontend answers GetSystemInfo; separate ones once every
// service serves (see waitForServices). `up` starts whichever is down.
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { grpc, temporal } from '@temporalio/proto';
import { grpcCode } from '../../worker/namespace-check';
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

/** Waits until the frontend answers; fails early when one of `pids` exits (with its log). For one process. */
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

/** How long `up` waits for separate service processes to start and serve (a cold start on a loaded machine included). */
const SERVICES_READY_TIMEOUT_MS = 240_000;
const PROBE_TIMEOUT_MS = 2_000;
const PROBE_INTERVAL_MS = 500;

/** The names the pinned server's services report in the gRPC health service (service/NAME/handler.go). */
const HEALTH_NAMES = {
  frontend: 'temporal.api.workflowservice.v1.WorkflowService',
  history: 'temporal.api.workflowservice.v1.HistoryService',
  matching: 'temporal.api.workflowservice.v1.MatchingService',
} as const;
type GrpcService = keyof typeof HEALTH_NAMES;
const { SERVING } = grpc.health.v1.HealthCheckResponse.ServingStatus;

/**
 * The worker service has no gRPC server; what shows it works is its own SDK worker polling the
 * system task queue (the server's primitives.DefaultWorkerTaskQueue in the system namespace).
 */
const SYSTEM_NAMESPACE = 'temporal-system';
const SYSTEM_TASK_QUEUE = 'default-worker-tq';
const { TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY } = temporal.api.enums.v1.TaskQueueType;
const GRPC_NOT_FOUND = 5;

function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * A call on a fresh channel to 127.0.0.1:`port`, bounded by PROBE_TIMEOUT_MS. Fresh because a
 * reused grpc-js channel backs off between reconnects (up to minutes) while a process starts.
 */
async function probe<T>(port: number, call: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = Connection.lazy({ address: `127.0.0.1:${port}` });
  try {
    return await connection.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () => call(connection));
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** The service's gRPC health status on its own port, or why there is none yet. */
async function healthStatus(state: ClusterState, service: GrpcService): Promise<number | string> {
  try {
    const { status } = await probe(state.ports[service], (c) =>
      c.healthService.check({ service: HEALTH_NAMES[service] }),
    );
    return status;
  } catch (error) {
    return `its gRPC port does not answer yet (${reason(error)})`;
  }
}

async function healthProblem(state: ClusterState, service: GrpcService): Promise<string | undefined> {
  const status = await healthStatus(state, service);
  if (typeof status === 'string') return status;
  return status === SERVING ? undefined : `its gRPC health is ${status} (not SERVING yet)`;
}

/** Why the frontend cannot serve a call that needs `service` yet (undefined when it can). */
async function routeProblem(
  state: ClusterState,
  service: 'history' | 'matching',
): Promise<string | undefined> {
  try {
    await probe(state.ports.frontend, async (c) => {
      if (service === 'history') {
        // Served by the history shard of this (missing) workflow: NOT_FOUND is history's answer.
        await c.workflowService.describeWorkflowExecution({
          namespace: SYSTEM_NAMESPACE,
          execution: { workflowId: 'tideline-cluster-readiness-probe' },
        });
      } else {
        await c.workflowService.describeTaskQueue({
          namespace: SYSTEM_NAMESPACE,
          taskQueue: { name: SYSTEM_TASK_QUEUE },
          taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
        });
      }
    });
    return undefined;
  } catch (error) {
    if (service === 'history' && grpcCode(error) === GRPC_NOT_FOUND) return undefined;
    return `the frontend cannot reach it yet (${reason(error)})`;
  }
}

/** Why the worker service does not poll yet: no poll of its since `since` (any poll when undefined). */
async function workerProblem(state: ClusterState, since: number | undefined): Promise<string | undefined> {
  try {
    const described = await probe(state.ports.frontend, (c) =>
      Promise.all(
        [TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY].map((taskQueueType) =>
          c.workflowService.describeTaskQueue({
            namespace: SYSTEM_NAMESPACE,
            taskQueue: { name: SYSTEM_TASK_QUEUE },
            taskQueueType,
          }),
        ),
      ),
    );
    // Pollers are listed for minutes after they stop: a restarted worker counts once it polled.
    const polled = described
      .flatMap(({ pollers }) => pollers ?? [])
      .some(
        (poller) =>
          poller.identity?.startsWith('temporal-system@') && tsToMs(poller.lastAccessTime) >= (since ?? 0),
      );
    return polled ? undefined : `it has not polled ${SYSTEM_TASK_QUEUE} yet`;
  } catch (error) {
    return `its task queue cannot be described yet (${reason(error)})`;
  }
}

/**
 * Why `service` does not serve yet, or undefined once it does: its own health SERVING (history:
 * once its shards are acquired) and the frontend reaching it; the frontend SERVING (its membership
 * initialised) and answering; the worker service polling. `startedAt`: when this `up` started it.
 */
async function serviceProblem(
  state: ClusterState,
  service: ServiceName,
  startedAt: number | undefined,
): Promise<string | undefined> {
  if (service === 'worker') return workerProblem(state, startedAt);
  const health = await healthProblem(state, service);
  if (health !== undefined) return health;
  if (service === 'frontend') {
    return (await answers(frontendAddress(state))) ? undefined : 'GetSystemInfo fails';
  }
  return routeProblem(state, service);
}

/**
 * Whether `service` got past the server's start-up: its gRPC port answers (any health status) once
 * the cluster metadata and system namespace are initialised; the frontend must serve (the worker
 * service's SDK client needs it). The worker service is started last, so nothing waits for it here.
 */
async function startedProblem(state: ClusterState, service: ServiceName): Promise<string | undefined> {
  if (service === 'worker') return undefined;
  if (service === 'frontend') return healthProblem(state, service);
  const status = await healthStatus(state, service);
  return typeof status === 'string' ? status : undefined;
}

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
  for (;;) {
    for (const service of SERVICES) {
      const pid = services[service];
      if (pid !== undefined && !isOurProcess(pid, serverMarker(paths))) {
        const log = serviceLog(paths, service);
        throw new CliError(
          'CLUSTER_START_FAILED',
          `the Temporal ${service} service (pid ${pid}) exited while the server started; the end of ${log}:\n${logTail(log)}`,
        );
      }
    }
    const problems = await Promise.all(
      which.map(async (service) => [service, await problem(service)] as const),
    );
    const pending = problems.filter(
      (entry): entry is readonly [ServiceName, string] => entry[1] !== undefined,
    );
    if (pending.length === 0) return;
    if (Date.now() > deadline) {
      const log = serviceLog(paths, pending[0]?.[0] ?? 'frontend');
      throw new CliError(
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
  throw new CliError(
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
    throw new CliError(
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
          await waitForServices(paths, services, [previous], (s) => startedProblem(state, s), deadline);
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
      (service) => serviceProblem(state, service, startedAt[service]),
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
