// The baseline's worker process: the Temporal SDK's Worker with the baseline workflows (bundled at
// start from bench/baseline/workflows.ts; of tideline's, only the sandbox's stack-trace depth) and
// activities over the shared Cloud API client. Started by bench/baseline/harness.ts as tideline's
// worker is, from the same variables: TEMPORAL_ADDRESS, TIDELINE_TASK_QUEUE, TIDELINE_CLOUD_*
// and, for the same settings as the tuned tideline worker, BENCH_WORKER_OPTIONS (JSON). The SDK's
// default data converter: no payload encryption, as a user's plain worker would have.
import { NativeConnection, Worker } from '@temporalio/worker';
import { createCloudClient } from '../../cloud/client';
import type { WorkerTuning } from '../tuned-worker';
import { createBaselineActivities } from './activities';
import { createExpertActivities } from './expert-activities';

/**
 * The line bench processes wait for before they start runs (worker/main.ts READY_LINE; not
 * imported, so this process loads nothing of tideline's worker).
 */
const READY_LINE = 'tideline worker ready';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  const tuning = JSON.parse(process.env.BENCH_WORKER_OPTIONS ?? '{}') as WorkerTuning;
  const taskQueue = required('TIDELINE_TASK_QUEUE');
  const api = createCloudClient({
    baseUrl: required('TIDELINE_CLOUD_URL'),
    accessKey: required('TIDELINE_CLOUD_ACCESS_KEY'),
    secretKey: required('TIDELINE_CLOUD_SECRET_KEY'),
    allowInsecureLoopback: true,
  });
  const connection = await NativeConnection.connect({ address: required('TEMPORAL_ADDRESS') });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
    // The same stack-trace depth in the workflow sandbox as tideline's worker (a worker setting,
    // not workflow code): the one module of tideline's in this bundle.
    bundlerOptions: { preloadModules: [require.resolve('../../workflows/stack-trace-limit')] },
    activities: { ...createBaselineActivities(api), ...createExpertActivities(api) },
    shutdownGraceTime: '10s',
    ...tuning,
  });
  process.stderr.write(
    `${READY_LINE}: baseline, task queue "${taskQueue}", tuning ${JSON.stringify(tuning)}\n`,
  );
  try {
    await worker.run();
  } finally {
    await connection.close();
    await api.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `bench baseline worker: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}
