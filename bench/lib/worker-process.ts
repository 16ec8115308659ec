// The worker under test as its own OS process, so its memory and CPU can be read from /proc and it
// can be killed with SIGKILL: the stock worker (dist/worker/main.js) or the tuned bench worker,
// started as the tests start theirs (cli/dev-stack/worker-process.ts).
import { randomBytes } from 'node:crypto';
import { cloudWorkerEnv, type CloudAccess } from '../../cli/dev-stack/local-cloud';
import type { SupervisedProcess } from '../../cli/dev-stack/supervised-process';
import { startWorkerProcess } from '../../cli/dev-stack/worker-process';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import type { WorkerTuning } from '../tuned-worker';
import { compiledBenchFile, REPO_ROOT, WORKER_ENTRY } from './repo';

/** A worker process (a supervised child: `pid` is its guard's, the group holds the worker). */
export type WorkerProcess = SupervisedProcess;

/** One payload key per benchmark process, shared by its workers and its clients. */
const KEY = randomBytes(32);
const BENCH_KEYS = `bench:${KEY.toString('base64')}`;
export const benchKeyRing = new EncryptionKeyRing([{ id: 'bench', key: KEY }]);

export interface WorkerSpec {
  temporalAddress: string;
  taskQueue: string;
  cloud: CloudAccess;
  /** Absent: the stock worker with the SDK's default settings. */
  tuning?: WorkerTuning;
  /** Node flags for the worker process (e.g. a heap limit). */
  nodeArgs?: string[];
}

/** Starts the worker and resolves once it polls. */
export function startWorker(spec: WorkerSpec): Promise<WorkerProcess> {
  // BENCH_WORKER_NODE_ARGS adds flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" to profile the worker.
  const extra = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return startWorkerProcess({
    entry: spec.tuning ? compiledBenchFile('tuned-worker.js') : WORKER_ENTRY,
    missingHint: 'run `npm run build` (and the bench build) first',
    env: {
      TEMPORAL_ADDRESS: spec.temporalAddress,
      TIDELINE_TASK_QUEUE: spec.taskQueue,
      ...cloudWorkerEnv(spec.cloud),
      TIDELINE_ENCRYPTION_KEYS: BENCH_KEYS,
      ...(spec.tuning ? { BENCH_WORKER_OPTIONS: JSON.stringify(spec.tuning) } : {}),
    },
    cwd: REPO_ROOT,
    nodeArgs: [...(spec.nodeArgs ?? []), ...extra],
    label: spec.tuning ? 'tuned bench worker' : 'tideline worker',
    readyTimeoutMs: 90_000,
  });
}
