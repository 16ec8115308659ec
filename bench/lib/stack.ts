// The system under test for a benchmark: a Temporal dev server, the local cloud (in this process,
// on 127.0.0.1 port 0) and a worker process, each started as the dev stack starts its own
// (cli/dev-stack/); a Temporal client with the worker's payload keys, a typed client of the local
// cloud, and a VPC to attach services to.
import { randomBytes } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { createCloudClient, type CloudClient } from '../../cloud/client';
import { loadRunbookFile } from '../../dsl/loader';
import { firstProjectAccess, startLoopbackCloud, type CloudAccess } from '../../cli/dev-stack/local-cloud';
import { createTeardown, unwindOnFailure } from '../../cli/dev-stack/teardown';
import type { LocalCloud, LocalCloudOptions } from '../../simulator/server';
import { connectCodecClient, localConnectionSettings } from '../../worker/connection';
import type { RunbookDefinition } from '../../dsl/definition';
import type { RunbookWorkflowInput } from '../../workflows/messages';
import type { WorkerTuning } from '../tuned-worker';
import { startDevServer, type DevServer } from './dev-server';
import { PROVISION_RUNBOOK } from './repo';
import { benchKeyRing, startWorker, type WorkerProcess } from './worker-process';

export type Durations = NonNullable<LocalCloudOptions['durations']>;

export interface StackOptions {
  durations?: Durations;
  /** Reuse a running dev server (several benchmarks in one process). */
  server?: DevServer;
  /** SQLite file for a new dev server, so it can be restarted. */
  dbFile?: string;
  /** Start no worker (the caller starts its own). */
  noWorker?: boolean;
  tuning?: WorkerTuning;
  /** Node flags for the worker process. */
  workerNodeArgs?: string[];
  seed?: number;
}

export interface BenchStack {
  server: DevServer;
  cloud: LocalCloud;
  access: CloudAccess;
  api: CloudClient;
  client: Client;
  taskQueue: string;
  vpcId: string;
  /** The worker process (undefined until started). */
  worker: WorkerProcess | undefined;
  startWorker(tuning?: WorkerTuning): Promise<WorkerProcess>;
  /** Starts provision-production-service for a service name (and optionally another VPC). */
  startProvisioning(name: string, vpcId?: string, definition?: RunbookDefinition): Promise<WorkflowHandle>;
  close(options?: { keepServer?: boolean }): Promise<void>;
}

let provisionDefinition: RunbookDefinition | undefined;

export function provisioningDefinition(): RunbookDefinition {
  provisionDefinition ??= loadRunbookFile(PROVISION_RUNBOOK);
  return provisionDefinition;
}

export async function startBenchStack(options: StackOptions = {}): Promise<BenchStack> {
  const teardown = createTeardown();
  // Read when the stack closes: a server it started may outlive it (`close({ keepServer })`).
  let keepServer = options.server !== undefined;
  const { server, cloud, access, api, vpcId, client } = await unwindOnFailure(teardown, async () => {
    const [server, cloud] = await Promise.all([
      options.server ??
        startDevServer(options.dbFile ? { dbFile: options.dbFile } : {}).then((started) => {
          teardown.addLast(() => (keepServer ? undefined : started.stop()));
          return started;
        }),
      startLoopbackCloud({
        timeScale: 1,
        ...(options.seed !== undefined ? { seed: options.seed } : {}),
        ...(options.durations ? { durations: options.durations } : {}),
      }).then((started) => {
        teardown.add(() => started.close());
        return started;
      }),
    ]);
    const access = firstProjectAccess(cloud);
    const api = createCloudClient({
      baseUrl: cloud.url,
      accessKey: access.accessKey,
      secretKey: access.secretKey,
      allowInsecureLoopback: true,
    });
    teardown.add(() => api.close());
    const vpc = await api.vpc.create({
      project_id: access.projectId,
      name: 'bench',
      cidr: '10.0.0.0/16',
      region_code: 'us-east-1',
    });
    const client = await connectCodecClient(localConnectionSettings(server.address), benchKeyRing);
    teardown.add(() => client.connection.close());
    return { server, cloud, access, api, vpcId: vpc.id!, client };
  });
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`;

  const stack: BenchStack = {
    server,
    cloud,
    access,
    api,
    client,
    taskQueue,
    vpcId,
    worker: undefined,
    async startWorker(tuning) {
      const worker = await startWorker({
        temporalAddress: server.address,
        taskQueue,
        cloud: access,
        ...(tuning ? { tuning } : {}),
        ...(options.workerNodeArgs ? { nodeArgs: options.workerNodeArgs } : {}),
      });
      stack.worker = worker;
      teardown.add(() => worker.stop());
      return worker;
    },
    startProvisioning(name, vpcId, definition) {
      const input: RunbookWorkflowInput = {
        definition: definition ?? provisioningDefinition(),
        inputs: { project_id: access.projectId, name, vpc_id: vpcId ?? stack.vpcId },
      };
      return client.workflow.start('runbookWorkflow', {
        taskQueue,
        workflowId: `${name}-${randomBytes(4).toString('hex')}`,
        args: [input],
      });
    },
    close(closeOptions = {}) {
      keepServer ||= closeOptions.keepServer === true;
      return teardown.close();
    },
  };
  if (!options.noWorker) {
    await unwindOnFailure(teardown, () => stack.startWorker(options.tuning));
  }
  return stack;
}
