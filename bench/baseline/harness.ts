// Running the hand-written baseline beside tideline on a bench stack (bench/lib/stack.ts): its
// worker as its own process (so its CPU is read from /proc as tideline's is), starting its
// workflows, and counting a run's history events.
import { randomBytes } from 'node:crypto';
import { Client, type WorkflowHandle } from '@temporalio/client';
import type { BenchStack } from '../lib/stack';
import type { WorkerProcess } from '../lib/worker-process';
import { compiledBenchFile, REPO_ROOT } from '../lib/repo';
import type { WorkerTuning } from '../tuned-worker';
import type { ProvisionInput, StopDevInput } from './workflows';

export interface BaselineWorkerSpec {
  taskQueue: string;
  /** Absent: the SDK's default settings (as the stock tideline worker's figures use theirs). */
  tuning?: WorkerTuning;
  nodeArgs?: string[];
}

/** Starts the baseline worker for the stack's server and local cloud; resolves once it polls. */
export async function startBaselineWorker(
  stack: BenchStack,
  spec: BaselineWorkerSpec,
): Promise<WorkerProcess> {
  return stack.startWorkerProcess(spec.taskQueue, {
    entry: compiledBenchFile('baseline/worker.js'),
    missingHint: 'run the bench build (`tsc -p bench/tsconfig.json`) first',
    env: spec.tuning ? { BENCH_WORKER_OPTIONS: JSON.stringify(spec.tuning) } : {},
    cwd: REPO_ROOT,
    nodeArgs: spec.nodeArgs ?? [],
    label: 'baseline worker',
    // The workflow bundle is built at start (webpack), which takes a while on a busy machine.
    readyTimeoutMs: 120_000,
  });
}

const plainClients = new WeakMap<BenchStack, Client>();

/**
 * A client with the SDK's default data converter on the stack's connection: the stack's own
 * client encrypts payloads with tideline's codec, which the baseline worker does not have.
 */
export function baselineClient(stack: BenchStack): Client {
  let client = plainClients.get(stack);
  if (client === undefined) {
    client = new Client({ connection: stack.client.connection });
    plainClients.set(stack, client);
  }
  return client;
}

/**
 * Which hand-written provisioning figure 7 compares with: the expert one (expert-workflows.ts,
 * the default) or the competent one (workflows.ts), chosen with BENCH_BASELINE_STYLE.
 */
export type BaselineStyle = 'expert' | 'competent';

export function baselineStyle(): BaselineStyle {
  const style = process.env.BENCH_BASELINE_STYLE ?? 'expert';
  if (style !== 'expert' && style !== 'competent')
    throw new Error(`BENCH_BASELINE_STYLE must be expert or competent, not ${style}`);
  return style;
}

const PROVISION_WORKFLOWS: Record<BaselineStyle, string> = {
  expert: 'provisionServiceExpert',
  competent: 'provisionService',
};

/** Starts the baseline provisioning of `name` on the stack's VPC. */
export function startBaselineProvisioning(
  stack: BenchStack,
  taskQueue: string,
  name: string,
): Promise<WorkflowHandle> {
  const input: ProvisionInput = { projectId: stack.access.projectId, name, vpcId: stack.vpcId };
  return baselineClient(stack).workflow.start(PROVISION_WORKFLOWS[baselineStyle()], {
    taskQueue,
    workflowId: `baseline-${name}-${randomBytes(4).toString('hex')}`,
    args: [input],
  });
}

/** Starts the baseline stop-dev-services over the services named `prefix…`. */
export function startBaselineStopDev(
  stack: BenchStack,
  taskQueue: string,
  input: Omit<StopDevInput, 'projectId'>,
): Promise<WorkflowHandle> {
  const full: StopDevInput = { projectId: stack.access.projectId, ...input };
  return baselineClient(stack).workflow.start('stopDevServices', {
    taskQueue,
    workflowId: `baseline-fleet-${randomBytes(4).toString('hex')}`,
    args: [full],
  });
}

/** Events in a closed run's history. */
export async function historyEvents(handle: WorkflowHandle): Promise<number> {
  return (await handle.fetchHistory()).events?.length ?? 0;
}
