// Everything but the worker, for tests whose workers run as separate OS processes (started,
// SIGKILLed and started again by the test): the local stack (stack/stack.ts) with the test
// encryption keys, the compiled dist/ the worker runs from, and the environment that points a
// worker process at all of it.
import type { Client, Connection } from '@temporalio/client';
import type { CloudClient } from '../../cloud/client';
import type { TestCloud, TestCloudOptions } from './local-cloud';
import type { TemporalServer, TemporalServerOptions } from './temporal-server';
import { startTestLocalStack } from './test-local-stack';
import { buildDist, testKeyRing } from './worker-process';

export interface ProcessWorkerStack {
  server: TemporalServer;
  cloud: TestCloud;
  connection: Connection;
  /** Encodes and decodes with `testKeyRing`, the keys of worker processes started by tests. */
  client: Client;
  /** A typed client of the cloud's first project, for asserting state. */
  api: CloudClient;
  /** TEMPORAL_ADDRESS, TIDELINE_TASK_QUEUE and TIDELINE_CLOUD_* of a worker process. */
  workerEnv(): NodeJS.ProcessEnv;
  /** Closes the clients, the cloud and the server (kill the worker processes first). */
  close(): Promise<void>;
}

export async function startProcessWorkerStack(options: {
  taskQueue: string;
  cloud: TestCloudOptions;
  /** Options of the Temporal dev server, e.g. `dbFile` to stop and restart it during a run. */
  temporal?: TemporalServerOptions;
}): Promise<ProcessWorkerStack> {
  const { stack, server, cloud } = await startTestLocalStack({
    cloud: options.cloud,
    temporal: options.temporal,
    keyRing: testKeyRing,
    alongside: buildDist(),
  });
  return {
    server,
    cloud,
    connection: stack.connection,
    client: stack.client,
    api: stack.api,
    workerEnv: () => stack.workerEnv(options.taskQueue),
    close: () => stack.close(),
  };
}
