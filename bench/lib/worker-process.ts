// The worker under test as its own OS process, so its memory and CPU can be read from /proc and it
// can be killed with SIGKILL: the stock worker (dist/worker/main.js) or the tuned bench worker.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { spawnGuarded, type GuardedProcess } from '../../test/helpers/guarded-process';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import type { WorkerTuning } from '../tuned-worker';
import { compiledBenchFile, REPO_ROOT, WORKER_ENTRY } from './repo';

export const READY = /tideline worker ready/;

/** One payload key per benchmark process, shared by its workers and its clients. */
const KEY = randomBytes(32);
export const BENCH_KEYS = `bench:${KEY.toString('base64')}`;
export const benchKeyRing = new EncryptionKeyRing([{ id: 'bench', key: KEY }]);

export interface CloudAccess {
  url: string;
  projectId: string;
  accessKey: string;
  secretKey: string;
}

export interface WorkerSpec {
  temporalAddress: string;
  taskQueue: string;
  cloud: CloudAccess;
  /** Absent: the stock worker with the SDK's default settings. */
  tuning?: WorkerTuning;
  /** Node flags for the worker process (e.g. a heap limit). */
  nodeArgs?: string[];
}

function environment(spec: WorkerSpec): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('TEMPORAL_') && !name.startsWith('TIDELINE_')) env[name] = value;
  }
  return {
    ...env,
    TEMPORAL_ADDRESS: spec.temporalAddress,
    TIDELINE_TASK_QUEUE: spec.taskQueue,
    TIDELINE_CLOUD_URL: spec.cloud.url,
    TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
    TIDELINE_CLOUD_PROJECT_ID: spec.cloud.projectId,
    TIDELINE_CLOUD_ACCESS_KEY: spec.cloud.accessKey,
    TIDELINE_CLOUD_SECRET_KEY: spec.cloud.secretKey,
    TIDELINE_ENCRYPTION_KEYS: BENCH_KEYS,
    ...(spec.tuning ? { BENCH_WORKER_OPTIONS: JSON.stringify(spec.tuning) } : {}),
  };
}

/** Starts the worker and resolves once it polls. */
export async function startWorker(spec: WorkerSpec): Promise<GuardedProcess> {
  const entry = spec.tuning ? compiledBenchFile('tuned-worker.js') : WORKER_ENTRY;
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: run \`npm run build\` (and the bench build) first`);
  // BENCH_WORKER_NODE_ARGS adds flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" to profile the worker.
  const extra = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const nodeArgs = [...(spec.nodeArgs ?? []), ...extra];
  const worker = spawnGuarded(process.execPath, [...nodeArgs, entry], {
    env: environment(spec),
    cwd: REPO_ROOT,
    label: spec.tuning ? 'tuned bench worker' : 'tideline worker',
  });
  try {
    await worker.waitForOutput(READY, 90_000);
  } catch (error) {
    await worker.kill();
    throw error;
  }
  return worker;
}
