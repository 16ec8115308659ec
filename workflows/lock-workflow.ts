// One workflow per locked resource: a FIFO mutex. Runs that mutate the same service queue here,
// so two runbooks never change one service at the same time. It ends when nobody holds or waits.
import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  acquireLockSignal,
  lockGrantedSignal,
  lockPingSignal,
  releaseLockSignal,
  type LockRequest,
} from './lock-messages';

/** How often a held lock checks that its holder still exists (a terminated run never releases). */
const HOLDER_CHECK_MS = 5 * 60_000;
const HISTORY_LIMIT = 2_000;

export async function resourceLockWorkflow(key: string, waiting: string[] = []): Promise<void> {
  const queue = [...waiting];
  let released = false;
  setHandler(acquireLockSignal, (request: LockRequest) => {
    if (!queue.includes(request.requesterId)) queue.push(request.requesterId);
  });
  setHandler(releaseLockSignal, (request: LockRequest) => {
    if (queue[0] === request.requesterId) released = true;
    else {
      const at = queue.indexOf(request.requesterId);
      if (at > 0) queue.splice(at, 1);
    }
  });

  while (queue.length > 0) {
    const holder = queue[0]!;
    released = false;
    try {
      await getExternalWorkflowHandle(holder).signal(lockGrantedSignal, { key });
    } catch {
      log.warn('lock holder is gone before it got the lock', { key, holder });
      queue.shift();
      continue;
    }
    while (!released) {
      if (await condition(() => released, HOLDER_CHECK_MS)) break;
      try {
        await getExternalWorkflowHandle(holder).signal(lockPingSignal, { key });
      } catch {
        log.warn('lock holder is gone; releasing its lock', { key, holder });
        released = true;
      }
    }
    queue.shift();
    if (workflowInfo().historyLength > HISTORY_LIMIT && queue.length > 0) {
      await continueAsNew<typeof resourceLockWorkflow>(key, queue);
    }
  }
}
