// The worker under test as its own OS process, so its memory and CPU can be read from /proc and it
// can be killed with SIGKILL: the stock worker (dist/worker/main.js) or the tuned bench worker,
// started by the local stack (stack/stack.ts) as the tests start theirs.
import { randomBytes } from 'node:crypto';
import type { SupervisedProcess } from '../../stack/supervised-process';
import type { WorkerProcessLaunch } from '../../stack/worker-process';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import type { WorkerTuning } from '../tuned-worker';
import { compiledBenchFile, REPO_ROOT, WORKER_ENTRY } from './repo';

/** A worker process (a supervised child: `pid` is its guard's, the group holds the worker). */
export type WorkerProcess = SupervisedProcess;

/** One payload key per benchmark process, shared by its workers and its clients. */
const KEY = randomBytes(32);
const BENCH_KEYS = `bench:${KEY.toString('base64')}`;
export const benchKeyRing = new EncryptionKeyRing([{ id: 'bench', key: KEY }]);

/** How a benchmark's worker process is launched on a stack (which adds its server and cloud). */
export function workerLaunch(
  tuning: WorkerTuning | undefined,
  nodeArgs: readonly string[] = [],
): Omit<WorkerProcessLaunch, 'env'> & { env: NodeJS.ProcessEnv } {
  // BENCH_WORKER_NODE_ARGS adds flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" to profile the worker.
  const extra = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return {
    entry: tuning ? compiledBenchFile('tuned-worker.js') : WORKER_ENTRY,
    missingHint: 'run `npm run build` (and the bench build) first',
    env: {
      TIDELINE_ENCRYPTION_KEYS: BENCH_KEYS,
      ...(tuning ? { BENCH_WORKER_OPTIONS: JSON.stringify(tuning) } : {}),
    },
    cwd: REPO_ROOT,
    nodeArgs: [...nodeArgs, ...extra],
    label: tuning ? 'tuned bench worker' : 'tideline worker',
    readyTimeoutMs: 90_000,
  };
}
