// Everything but the worker, for tests whose workers run as separate OS processes (started,
// SIGKILLed and started again by the test): a Temporal dev server, the local cloud, a client with
// the test encryption keys, a typed client of the cloud, the compiled dist/ the worker runs from,
// and the environment that points a worker process at all of it.
import { Client, type Connection } from '@temporalio/client';
import type { CloudClient } from '../../cloud/client';
import { createDataConverter } from '../../worker/codec';
import {
  cloudApiClient,
  cloudWorkerEnv,
  startTestCloud,
  type TestCloud,
  type TestCloudOptions,
} from './local-cloud';
import { createTeardown, unwindOnFailure } from '../../cli/dev-stack/teardown';
import { connectClosable } from './client-connection';
import { startTemporalServer, type TemporalServer, type TemporalServerOptions } from './temporal-server';
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
  const teardown = createTeardown();
  const { server, cloud, closable, api } = await unwindOnFailure(teardown, async () => {
    const [server, cloud] = await Promise.all([
      startTemporalServer(options.temporal).then((started) => {
        teardown.addLast(() => started.stop());
        return started;
      }),
      startTestCloud(options.cloud).then((started) => {
        teardown.add(() => started.close());
        return started;
      }),
      buildDist(),
    ]);
    const api = cloudApiClient(cloud);
    teardown.add(() => api.close());
    const closable = await connectClosable(server.address);
    teardown.add(() => closable.close());
    return { server, cloud, closable, api };
  });
  const { connection } = closable;
  const client = new Client({ connection, dataConverter: createDataConverter(testKeyRing) });
  return {
    server,
    cloud,
    connection,
    client,
    api,
    workerEnv: () => ({
      TEMPORAL_ADDRESS: server.address,
      TIDELINE_TASK_QUEUE: options.taskQueue,
      ...cloudWorkerEnv(cloud),
    }),
    close: () => teardown.close(),
  };
}
