// A tideline worker process with explicit tuning options (cache size, task slots), next to the
// stock worker (dist/worker/main.js, which runs with DEFAULT_WORKER_TUNING from
// worker/config-schema.ts). Everything else is the product's: the same configuration (TIDELINE_*
// and TEMPORAL_* variables), activities, data converter and prebuilt workflow bundle. The
// throughput benchmark runs both to show what the settings beyond the defaults (a fixed cache of
// 2,000 runs, a 640 MB heap) change. Tuning comes from BENCH_WORKER_OPTIONS (JSON).
import { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../activities';
import { createCloudClientResolver } from '../worker/cloud-clients';
import { createDataConverter } from '../worker/codec';
import { loadWorkerConfig, configSecrets } from '../worker/config';
import { connectWorker, loadTemporalSettings } from '../worker/connection';
import { loadEncryptionKeys } from '../worker/key-store';
import { READY_LINE } from '../worker/main';
import { installRuntime } from '../worker/runtime';
import { SHUTDOWN_GRACE_TIME } from '../worker/worker';
import { WORKFLOW_BUNDLE } from './lib/repo';

export const WorkerTuning = z.strictObject({
  maxCachedWorkflows: z.number().int().min(0).optional(),
  maxConcurrentWorkflowTaskExecutions: z.number().int().min(2).optional(),
  maxConcurrentActivityTaskExecutions: z.number().int().min(1).optional(),
  maxConcurrentWorkflowTaskPolls: z.number().int().min(1).optional(),
  maxConcurrentActivityTaskPolls: z.number().int().min(1).optional(),
});
export type WorkerTuning = z.infer<typeof WorkerTuning>;

async function main(): Promise<void> {
  const tuning = WorkerTuning.parse(JSON.parse(process.env.BENCH_WORKER_OPTIONS ?? '{}'));
  const config = loadWorkerConfig();
  const temporal = loadTemporalSettings();
  const { keyRing } = loadEncryptionKeys();
  const secrets = configSecrets(config);
  installRuntime({ secrets });
  const connection = await connectWorker(temporal);
  const worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: config.taskQueue,
    activities: createActivities({ clients: createCloudClientResolver(config.cloud) }),
    dataConverter: createDataConverter(keyRing),
    shutdownGraceTime: SHUTDOWN_GRACE_TIME,
    workflowBundle: { codePath: WORKFLOW_BUNDLE },
    ...tuning,
  });
  process.stderr.write(`${READY_LINE}: task queue "${config.taskQueue}", tuning ${JSON.stringify(tuning)}\n`);
  try {
    await worker.run();
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench tuned worker: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
