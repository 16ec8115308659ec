// A tideline worker in this process, running the real interpreter and activities: the worker of
// `tideline dev` and `tideline demo`, and of the tests' runbook stack.
import type { WorkerConfig } from '../worker/config';
import { createTidelineWorker, type TidelineWorker, type TidelineWorkerDeps } from '../worker/worker';

export interface InProcessWorker {
  readonly worker: TidelineWorker;
  /** Settles when the worker stops; rejects if it failed. */
  readonly stopped: Promise<void>;
  /** Shuts the worker down gracefully and waits until it has stopped (never rejects). */
  stop(): Promise<void>;
}

export async function startInProcessWorker(
  config: WorkerConfig,
  deps: TidelineWorkerDeps,
): Promise<InProcessWorker> {
  const worker = await createTidelineWorker(config, deps);
  const stopped = worker.run();
  // A failure is the caller's to read through `stopped`; it must not surface as unhandled.
  stopped.catch(() => undefined);
  return {
    worker,
    stopped,
    async stop() {
      worker.shutdown();
      await stopped.catch(() => undefined);
    },
  };
}
