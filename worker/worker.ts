// Creates the tideline worker: the encrypted data converter, the activities built from the
// worker's configuration, and the workflow code. A function (not a process) so tests can run it
// in-process against a dev server; main.ts wraps it for `npm run worker`.
import { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { driftWatchSettings } from './drift-states';
import type { Clock, CloudClientResolver } from '../activities/deps';
import { createCloudClientResolver, type LimitedCloudClientResolver } from './cloud-clients';
import { shareBudgets } from './rate-share';
import { createDataConverter } from './codec';
import type { WorkerConfig } from './config';
import { connectWorker, type TemporalSettings } from './connection';
import type { EncryptionKeyRing } from './encryption-keys';
import { ensureNamespaceExists, ensureSearchAttributes } from './namespace-check';
import type { WorkerTracing } from './tracing';
import { temporalStartLedger } from './start-ledger';
import {
  resolveWorkflowSource,
  tracingWorkflowModules,
  workflowPreloadModules,
  type WorkflowSource,
} from './workflow-source';

export interface TidelineWorkerDeps {
  /** Keys for the payload codec; every client of the namespace must use the same keys. */
  keyRing: EncryptionKeyRing;
  /** Where to connect; needed unless `connection` is given (its namespace is used either way). */
  temporal?: TemporalSettings;
  /** An existing connection (tests); it is left open by `run()`. */
  connection?: NativeConnection;
  /** Default: `temporal.namespace`, else `default`. */
  namespace?: string;
  /** Default: clients built from `config.cloud`. */
  clients?: CloudClientResolver;
  clock?: Clock;
  /** The time policies and change windows are evaluated at (default `clock`). */
  policyClock?: Clock;
  /** Replaces the activities (tests with fixture workflows). */
  activities?: object;
  /** Default: the prebuilt bundle when fresh, else `workflows/index`. */
  workflows?: WorkflowSource;
  /** Worker identity shown in Temporal; default `<pid>@<host>`. */
  identity?: string;
  /** Receives one-line, secret-free start-up messages. */
  log?: (line: string) => void;
  /** Traces runs (worker/tracing.ts): its interceptors and sink, and the traced workflow bundle. */
  tracing?: WorkerTracing;
}

export interface TidelineWorker {
  readonly worker: Worker;
  readonly taskQueue: string;
  readonly namespace: string;
  /** Polls until shutdown() or a shutdown signal; then closes a connection it opened itself. */
  run(): Promise<void>;
  /** Starts a graceful shutdown: no new tasks, in-flight ones get the grace time. */
  shutdown(): void;
  /** How many workers share each project's API budget, as last counted (1 without a budget). */
  budgetSharers(): number;
}

/** What the worker says at start about the runbooks it runs. */
export function catalogNotice(config: Pick<WorkerConfig, 'catalog'>): string {
  const catalog = config.catalog;
  const count = catalog?.list.length ?? 0;
  if (catalog === undefined || catalog.mode === 'development') {
    return `tideline worker: development setting: runs any runbook a client sends${count > 0 ? ` (besides its catalogue of ${count})` : ''}; a production worker names its runbooks under catalog: (docs/security.md)`;
  }
  return `tideline worker: runs the ${count} runbook(s) of its catalogue; any other definition is refused (RUNBOOK_NOT_ALLOWED)`;
}

/** In-flight activities get this long to finish (or see their cancellation) on shutdown. */
export const SHUTDOWN_GRACE_TIME = '10s';

/**
 * The config file's `tuning:` as worker options. The SDK compiles the older poller settings
 * (`maxConcurrent*TaskPolls`) to its default poller behaviour (10) and ignores their values, so
 * they are passed as `*TaskPollerBehavior` instead.
 */
export function tuningOptions(tuning: WorkerConfig['tuning']): Partial<WorkerOptions> {
  const { maxConcurrentActivityTaskPolls, maxConcurrentWorkflowTaskPolls, ...slots } = tuning;
  return {
    ...slots,
    ...(maxConcurrentActivityTaskPolls !== undefined
      ? { activityTaskPollerBehavior: { type: 'simple-maximum', maximum: maxConcurrentActivityTaskPolls } }
      : {}),
    ...(maxConcurrentWorkflowTaskPolls !== undefined
      ? { workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: maxConcurrentWorkflowTaskPolls } }
      : {}),
  };
}

export async function createTidelineWorker(
  config: WorkerConfig,
  deps: TidelineWorkerDeps,
): Promise<TidelineWorker> {
  const log = deps.log ?? (() => undefined);
  const namespace = deps.namespace ?? deps.temporal?.namespace ?? 'default';
  let ownedConnection: NativeConnection | undefined;
  let connection = deps.connection;
  if (connection === undefined) {
    if (deps.temporal === undefined)
      throw new Error('createTidelineWorker needs `temporal` settings or a `connection`');
    ownedConnection = await connectWorker(deps.temporal);
    connection = ownedConnection;
  }
  try {
    // Before anything slow or noisy (bundling, the SDK's own worker validation).
    const address = deps.temporal?.connection.address ?? 'the server';
    await ensureNamespaceExists(connection, namespace, address);
    const warning = await ensureSearchAttributes(connection, namespace, address);
    if (warning !== undefined) log(`tideline worker: ${warning}`);
  } catch (error) {
    await ownedConnection?.close();
    throw error;
  }

  let workflows = deps.workflows;
  if (workflows === undefined) {
    const resolved = resolveWorkflowSource({ traced: deps.tracing !== undefined });
    log(`tideline worker: workflow code from ${resolved.reason}`);
    workflows = resolved.source;
  }
  const clients = deps.clients ?? createCloudClientResolver(config.cloud);
  const dataConverter = createDataConverter(deps.keyRing);
  const client = new Client({ connection, namespace, dataConverter });
  log(catalogNotice(config));
  if (config.drift !== undefined)
    log(
      `tideline worker: watches ${config.drift.states.size} state(s) for drift when asked (tideline drift-watch start): ${[...config.drift.states.keys()].join(', ')}`,
    );
  const activities =
    deps.activities ??
    createActivities({
      clients,
      approvals: config.approvals,
      notifications: config.notifications,
      startLedger: temporalStartLedger(client),
      ...(config.catalog !== undefined && { catalog: config.catalog }),
      ...(config.governance !== undefined && { governance: config.governance }),
      ...(config.drift !== undefined && {
        // Repair runs start on this worker's own connection and task queue, as drift.repairAs.
        drift: driftWatchSettings(config.drift, clients, config.cloud.defaultProjectId, {
          client,
          taskQueue: config.taskQueue,
        }),
      }),
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(deps.policyClock ? { policyClock: deps.policyClock } : {}),
    });

  const { tracing } = deps;
  const bundledAtStart = 'workflowsPath' in workflows;
  const options: WorkerOptions = {
    connection,
    namespace,
    taskQueue: config.taskQueue,
    activities,
    dataConverter,
    shutdownGraceTime: SHUTDOWN_GRACE_TIME,
    ...tuningOptions(config.tuning),
    ...workflows,
    // Bundled at start: with the same shared modules as the prebuilt bundle (worker/bundle.ts).
    ...(bundledAtStart ? { bundlerOptions: { preloadModules: workflowPreloadModules() } } : {}),
    // A prebuilt traced bundle already holds the workflow interceptors; one made at start gets them.
    ...(tracing !== undefined
      ? {
          interceptors: {
            ...tracing.interceptors,
            ...(bundledAtStart ? { workflowModules: tracingWorkflowModules() } : {}),
          },
          sinks: tracing.sinks,
        }
      : {}),
    ...(deps.identity ? { identity: deps.identity } : {}),
  };
  let worker: Worker;
  try {
    worker = await Worker.create(options);
  } catch (error) {
    await ownedConnection?.close();
    throw error;
  }

  const limiters = (clients as Partial<LimitedCloudClientResolver>).limiters?.() ?? [];
  const place = { namespace, taskQueue: config.taskQueue, identity: worker.options.identity };
  const sharing = limiters.length > 0 ? shareBudgets(connection, place, limiters, log) : undefined;
  // Before the first task: a worker joining others starts with its part, not the whole budget.
  await sharing?.refresh().catch(() => undefined);
  return {
    worker,
    taskQueue: config.taskQueue,
    namespace,
    async run() {
      try {
        await worker.run();
      } finally {
        sharing?.stop();
        await ownedConnection?.close();
      }
    },
    shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    },
    budgetSharers: () => limiters[0]?.workers ?? 1,
  };
}
