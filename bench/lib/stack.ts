// The system under test for a benchmark: the local stack (stack/stack.ts: a Temporal dev
// server, the local cloud in this process, a Temporal client with the worker's payload keys, a
// typed client of the cloud) with a worker process, and a VPC to attach services to.
import { randomBytes } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { CloudClient } from '../../cloud/client';
import { loadRunbookFile } from '../../dsl/loader';
import type { CloudAccess } from '../../stack/local-cloud';
import { startLocalStack, type LocalStack } from '../../stack/stack';
import { unwindOnFailure } from '../../stack/teardown';
import type { LocalCloud, LocalCloudOptions } from '../../local-cloud/server';
import type { RunbookDefinition } from '../../dsl/definition';
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import { RUNBOOK_WORKFLOW_TYPE } from '../../contract/workflow-types';
import type { WorkerTuning } from '../tuned-worker';
import { devServerOptions, type DevServer } from './dev-server';
import { PROVISION_RUNBOOK } from './repo';
import { benchKeyRing, workerLaunch, type WorkerProcess } from './worker-process';

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
  /** Starts any worker process (e.g. the baseline's) on the stack's server and cloud; stopped on close. */
  startWorkerProcess: LocalStack['startWorkerProcess'];
  /** Starts a worker process (stock, or tuned) on the stack's server and cloud; stopped on close. */
  startWorker(tuning?: WorkerTuning, nodeArgs?: readonly string[]): Promise<WorkerProcess>;
  /** Starts a run of a runbook (workflow id: the runbook's name and a random suffix unless given). */
  startRun(
    definition: RunbookDefinition,
    inputs: Record<string, unknown>,
    workflowId?: string,
  ): Promise<WorkflowHandle>;
  /** Starts provision-production-service for a service name (and optionally another VPC). */
  startProvisioning(name: string, vpcId?: string, definition?: RunbookDefinition): Promise<WorkflowHandle>;
  /** Stops the worker, the cloud and the server, unless the server was given (`server`). */
  close(): Promise<void>;
}

let provisionDefinition: RunbookDefinition | undefined;

export function provisioningDefinition(): RunbookDefinition {
  provisionDefinition ??= loadRunbookFile(PROVISION_RUNBOOK);
  return provisionDefinition;
}

export async function startBenchStack(options: StackOptions = {}): Promise<BenchStack> {
  const stack = await startLocalStack({
    temporal: options.server
      ? { running: options.server }
      : { start: devServerOptions(options.dbFile ? { dbFile: options.dbFile } : {}) },
    keyRing: benchKeyRing,
    cloud: {
      timeScale: 1,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.durations ? { durations: options.durations } : {}),
    },
  });
  const { access, api, client } = stack;
  const server = options.server ?? stack.server!;
  const vpc = await unwindOnFailure(stack.teardown, () =>
    api.vpc.create({
      project_id: access.projectId,
      name: 'bench',
      cidr: '10.0.0.0/16',
      region_code: 'us-east-1',
    }),
  );
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`;

  const bench: BenchStack = {
    server,
    cloud: stack.cloud,
    access,
    api,
    client,
    taskQueue,
    vpcId: vpc.id!,
    worker: undefined,
    startWorkerProcess: stack.startWorkerProcess,
    async startWorker(tuning, nodeArgs = options.workerNodeArgs) {
      bench.worker = await stack.startWorkerProcess(taskQueue, workerLaunch(tuning, nodeArgs));
      return bench.worker;
    },
    startRun(definition, inputs, workflowId) {
      const input: RunbookWorkflowInput = { definition, inputs };
      return client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: workflowId ?? `${definition.name}-${randomBytes(4).toString('hex')}`,
        args: [input],
      });
    },
    startProvisioning(name, vpcId, definition) {
      return bench.startRun(
        definition ?? provisioningDefinition(),
        { project_id: access.projectId, name, vpc_id: vpcId ?? bench.vpcId },
        `${name}-${randomBytes(4).toString('hex')}`,
      );
    },
    close: () => stack.close(),
  };
  if (!options.noWorker) {
    await unwindOnFailure(stack.teardown, () => bench.startWorker(options.tuning));
  }
  return bench;
}
