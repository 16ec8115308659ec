// Shares each project's API budget among the workers of a task queue: every worker counts the
// workers polling the queue's activity tasks (Temporal's DescribeTaskQueue: the pollers seen in the
// last minute) and takes an equal part, so that together they stay under the budget. A worker that
// just started counts itself until Temporal lists it; one that died is counted for up to a minute
// more (the others then run a little under the budget, never over it once every worker is listed).
import type { NativeConnection } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { ProjectRateLimiter } from '../cloud/rate-limiter';

/** How often the workers are counted again (a worker that joins is counted by the others within this). */
export const SHARE_REFRESH_MS = 3_000;
/** A poller not seen for longer is no longer counted. */
const POLLER_WINDOW_MS = 60_000;

export interface BudgetSharing {
  /** Counts the workers now and shares the budgets out; the number of workers. */
  refresh(): Promise<number>;
  stop(): void;
}

export function shareBudgets(
  connection: NativeConnection,
  place: { namespace: string; taskQueue: string; identity: string },
  limiters: readonly ProjectRateLimiter[],
  log: (line: string) => void = () => undefined,
): BudgetSharing {
  const refresh = async (): Promise<number> => {
    const answer = await connection.workflowService.describeTaskQueue({
      namespace: place.namespace,
      taskQueue: { name: place.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const now = Date.now();
    const identities = new Set(
      (answer.pollers ?? [])
        .filter((poller) => {
          const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
          return now - seconds * 1000 <= POLLER_WINDOW_MS;
        })
        .map((poller) => poller.identity ?? ''),
    );
    // This worker too, before Temporal lists it (it has not polled yet when it starts).
    identities.add(place.identity);
    const workers = identities.size;
    if (workers !== limiters[0]?.workers)
      log(`tideline worker: ${workers} workers share each project's API budget`);
    for (const limiter of limiters) limiter.share(workers);
    return workers;
  };
  const timer = setInterval(() => {
    // Counting failed (the server is away): the last share stands.
    refresh().catch(() => undefined);
  }, SHARE_REFRESH_MS);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}
