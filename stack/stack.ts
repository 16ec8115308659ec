// The one way to start a local tideline stack: a Temporal server (a local dev server started here,
// or one already running: a cluster's, another stack's), the local cloud, a client with the
// stack's payload keys, and tideline workers, in this process or as OS processes. `tideline dev`
// and `demo` (dev-stack.ts), `tideline test` (runbook-test/test-stack.ts), the tests' stacks and
// the benchmarks' all start here and add only what is theirs.
//
//   const stack = await startLocalStack({ temporal: { start: { executable } }, keyRing, cloud: {} });
//   const worker = await stack.startInProcessWorker(stack.workerConfig(taskQueue));
//   await stack.client.workflow.start(…);
//   await stack.close();   // workers, then the cloud, then the server
import type { Client, Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { createCloudClient, type CloudClient } from '../cloud/client';
import type { LocalCloud } from '../local-cloud/server';
import type { WorkerConfig } from '../worker/config';
import { connectWorker, localConnectionSettings, type TemporalSettings } from '../worker/connection';
import type { EncryptionKeyRing } from '../worker/encryption-keys';
import type { TidelineWorkerDeps } from '../worker/worker';
import { startInProcessWorker, type InProcessWorker } from './in-process-worker';
import {
  allProjectsAccess,
  cloudWorkerEnv,
  firstProjectAccess,
  localCloudWorkerConfig,
  startLoopbackCloud,
  type CloudAccess,
  type LocalWorkerFile,
  type LoopbackCloudOptions,
} from './local-cloud';
import { startLocalTemporal, type LocalTemporal, type LocalTemporalOptions } from './local-temporal';
import { connectStackClient } from './stack-client';
import { createTeardown, unwindOnFailure, type Teardown } from './teardown';
import { startWorkerProcess, type WorkerProcessLaunch } from './worker-process';
import type { SupervisedProcess } from './supervised-process';

/** A dev server this stack starts (and stops last), or a server that is already running. */
export type StackTemporal = { start: LocalTemporalOptions } | { running: { readonly address: string } };

export interface TemporalStackOptions {
  temporal: StackTemporal;
  /** Default `default`. */
  namespace?: string;
  /** The payload keys of the stack's client and of its in-process workers. */
  keyRing: EncryptionKeyRing;
  /** Work done while the server starts (e.g. building dist/ for worker processes). */
  alongside?: Promise<unknown>;
}

export interface TemporalStack {
  /** The server this stack started; undefined when it runs on one already running. */
  readonly server: LocalTemporal | undefined;
  readonly temporal: TemporalSettings;
  /** A client with the stack's keys; once the stack closes, its calls are not retried. */
  readonly client: Client;
  /** The client's connection. */
  readonly connection: Connection;
  /** What the stack stops on close; callers add what they start on top of it. */
  readonly teardown: Teardown;
  /** A tideline worker in this process on the stack's server, stopped on close. */
  startInProcessWorker(
    config: WorkerConfig,
    deps?: Omit<TidelineWorkerDeps, 'keyRing' | 'connection' | 'namespace' | 'temporal'>,
  ): Promise<InProcessWorker>;
  /** Stops everything, latest first; rejects with the first failure. Safe to call twice. */
  close(): Promise<void>;
}

export interface LocalStackOptions extends TemporalStackOptions {
  /** The local cloud, in this process on 127.0.0.1 (a free port unless one is given). */
  cloud: LoopbackCloudOptions;
}

export interface LocalStack extends TemporalStack {
  readonly cloud: LocalCloud;
  /** The cloud's first project. */
  readonly access: CloudAccess;
  /** A typed client of the first project. */
  readonly api: CloudClient;
  /** The configuration of a worker in this process for the first project, or for all of them. */
  workerConfig(taskQueue: string, projects?: 'first' | 'all', file?: LocalWorkerFile): WorkerConfig;
  /** TEMPORAL_ADDRESS, TIDELINE_TASK_QUEUE and TIDELINE_CLOUD_* of a worker process (first project). */
  workerEnv(taskQueue: string): Record<string, string>;
  /** A worker as its own OS process on the stack's server and cloud, stopped on close. */
  startWorkerProcess(
    taskQueue: string,
    launch: Omit<WorkerProcessLaunch, 'env'> & { env?: NodeJS.ProcessEnv },
  ): Promise<SupervisedProcess>;
}

/** The server, a client and in-process workers, without a local cloud (the caller routes calls). */
export async function startTemporalStack(options: TemporalStackOptions): Promise<TemporalStack> {
  return startStackParts(options, createTeardown(), undefined).then(({ stack }) => stack);
}

/** The server, the local cloud, a client, and workers in this process or as OS processes. */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const teardown = createTeardown();
  const { stack, cloud } = await startStackParts(options, teardown, options.cloud);
  return unwindOnFailure(teardown, async () => {
    const access = firstProjectAccess(cloud);
    const api = createCloudClient({
      baseUrl: cloud.url,
      accessKey: access.accessKey,
      secretKey: access.secretKey,
      allowInsecureLoopback: true,
    });
    teardown.add(() => api.close());
    const workerEnv = (taskQueue: string) => ({
      TEMPORAL_ADDRESS: stack.temporal.connection.address,
      TIDELINE_TASK_QUEUE: taskQueue,
      ...cloudWorkerEnv(access),
    });
    return {
      ...stack,
      cloud,
      access,
      api,
      workerConfig: (taskQueue, projects = 'first', file = {}) =>
        localCloudWorkerConfig(
          cloud.url,
          projects === 'all' ? allProjectsAccess(cloud) : [access],
          taskQueue,
          file,
        ),
      workerEnv,
      async startWorkerProcess(taskQueue, launch) {
        const worker = await startWorkerProcess({
          ...launch,
          env: { ...workerEnv(taskQueue), ...launch.env },
        });
        teardown.add(() => worker.stop());
        return worker;
      },
    };
  });
}

async function startStackParts<Cloud extends LoopbackCloudOptions | undefined>(
  options: TemporalStackOptions,
  teardown: Teardown,
  cloudOptions: Cloud,
): Promise<{ stack: TemporalStack; cloud: Cloud extends undefined ? undefined : LocalCloud }> {
  type StartedCloud = Cloud extends undefined ? undefined : LocalCloud;
  const namespace = options.namespace ?? 'default';
  return unwindOnFailure(teardown, async () => {
    const [server, cloud] = await Promise.all([
      'start' in options.temporal
        ? startLocalTemporal(options.temporal.start).then((started) => {
            teardown.addLast(() => started.stop());
            return started;
          })
        : undefined,
      cloudOptions === undefined
        ? undefined
        : startLoopbackCloud(cloudOptions).then((started) => {
            teardown.add(() => started.close());
            return started;
          }),
      options.alongside,
    ]);
    const address =
      server?.address ?? ('running' in options.temporal ? options.temporal.running.address : '');
    const temporal = localConnectionSettings(address, namespace);
    const client = await connectStackClient(temporal, options.keyRing);
    teardown.add(() => client.close());
    // One worker connection for all the stack's in-process workers, opened with the first.
    let workerConnection: Promise<NativeConnection> | undefined;
    const stack: TemporalStack = {
      server,
      temporal,
      client: client.client,
      connection: client.connection,
      teardown,
      async startInProcessWorker(config, deps = {}) {
        workerConnection ??= connectWorker(temporal).then((connection) => {
          teardown.add(() => connection.close());
          return connection;
        });
        const worker = await startInProcessWorker(config, {
          ...deps,
          keyRing: options.keyRing,
          connection: await workerConnection,
          namespace,
        });
        teardown.add(() => worker.stop());
        return worker;
      },
      close: () => teardown.close(),
    };
    return { stack, cloud: cloud as StartedCloud };
  });
}
