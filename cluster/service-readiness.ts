// Whether the native cluster's Temporal server serves: the frontend answering, and — with one
// process per service — each service's gRPC health, the frontend reaching history and matching,
// and the worker service polling its system task queue. Probes only; cluster/server.ts starts
// the processes and waits on them. With mTLS every probe presents the server's own certificate
// (`tls`, from cluster/tls.ts): the internode ports accept no other.
import { Connection, type TLSConfig } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { grpc, temporal } from '@temporalio/proto';
import { GRPC_NOT_FOUND, grpcCode } from '../worker/namespace-check';
import type { ServiceName } from './services';
import type { ClusterState } from './state';

export function frontendAddress(state: ClusterState): string {
  return `127.0.0.1:${state.ports.frontend}`;
}

export async function answers(address: string, tls: TLSConfig | undefined): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 2_000, ...(tls && { tls }) });
    await connection.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

const PROBE_TIMEOUT_MS = 2_000;
export const PROBE_INTERVAL_MS = 500;

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

function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * A call on a fresh channel to 127.0.0.1:`port`, bounded by PROBE_TIMEOUT_MS. Fresh because a
 * reused grpc-js channel backs off between reconnects (up to minutes) while a process starts.
 */
async function probe<T>(
  port: number,
  tls: TLSConfig | undefined,
  call: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = Connection.lazy({ address: `127.0.0.1:${port}`, ...(tls && { tls }) });
  try {
    return await connection.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () => call(connection));
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** The service's gRPC health status on its own port, or why there is none yet. */
async function healthStatus(
  state: ClusterState,
  tls: TLSConfig | undefined,
  service: GrpcService,
): Promise<number | string> {
  try {
    const { status } = await probe(state.ports[service], tls, (c) =>
      c.healthService.check({ service: HEALTH_NAMES[service] }),
    );
    return status;
  } catch (error) {
    return `its gRPC port does not answer yet (${reason(error)})`;
  }
}

async function healthProblem(
  state: ClusterState,
  tls: TLSConfig | undefined,
  service: GrpcService,
): Promise<string | undefined> {
  const status = await healthStatus(state, tls, service);
  if (typeof status === 'string') return status;
  return status === SERVING ? undefined : `its gRPC health is ${status} (not SERVING yet)`;
}

/** Why the frontend cannot serve a call that needs `service` yet (undefined when it can). */
async function routeProblem(
  state: ClusterState,
  tls: TLSConfig | undefined,
  service: 'history' | 'matching',
): Promise<string | undefined> {
  try {
    await probe(state.ports.frontend, tls, async (c) => {
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
async function workerProblem(
  state: ClusterState,
  tls: TLSConfig | undefined,
  since: number | undefined,
): Promise<string | undefined> {
  try {
    const described = await probe(state.ports.frontend, tls, (c) =>
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
export async function serviceProblem(
  state: ClusterState,
  tls: TLSConfig | undefined,
  service: ServiceName,
  startedAt: number | undefined,
): Promise<string | undefined> {
  if (service === 'worker') return workerProblem(state, tls, startedAt);
  const health = await healthProblem(state, tls, service);
  if (health !== undefined) return health;
  if (service === 'frontend') {
    return (await answers(frontendAddress(state), tls)) ? undefined : 'GetSystemInfo fails';
  }
  return routeProblem(state, tls, service);
}

/**
 * Whether `service` got past the server's start-up: its gRPC port answers (any health status) once
 * the cluster metadata and system namespace are initialised; the frontend must serve (the worker
 * service's SDK client needs it). The worker service is started last, so nothing waits for it here.
 */
export async function startedProblem(
  state: ClusterState,
  tls: TLSConfig | undefined,
  service: ServiceName,
): Promise<string | undefined> {
  if (service === 'worker') return undefined;
  if (service === 'frontend') return healthProblem(state, tls, service);
  const status = await healthStatus(state, tls, service);
  return typeof status === 'string' ? status : undefined;
}
