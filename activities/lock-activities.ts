// Starts (or signals) the lock workflow of a resource on behalf of a run. Only an activity can
// signal-with-start, so runs reach their locks through these.
import { Context } from '@temporalio/activity';
import {
  acquireLockSignal,
  HELD_LOCK_WORKFLOW_TYPE,
  LOCK_WORKFLOW_TYPE,
  lockWorkflowId,
  type LockRequest,
  type LockTaken,
} from '../contract/lock-messages';
import { isAlreadyStarted } from '../contract/workflow-types';
import { createLockHolderWatch } from './lock-holder-watch';

/** Queues the request on the key's lock workflow, starting one when none runs. */
async function queueOnLock(request: LockRequest): Promise<void> {
  const ctx = Context.current();
  await ctx.client.workflow.signalWithStart(LOCK_WORKFLOW_TYPE, {
    workflowId: lockWorkflowId(request.key),
    taskQueue: ctx.info.taskQueue,
    args: [request.key],
    signal: acquireLockSignal,
    signalArgs: [request],
  });
}

export function createLockActivities() {
  return {
    ...createLockHolderWatch(),
    /** As runs of earlier releases ask: the grant always comes as a signal. */
    async 'lock.request'(request: LockRequest): Promise<void> {
      await queueOnLock(request);
    },
    /**
     * Takes the lock: when no lock workflow of the key runs, starts one that the requester holds
     * from its start ('held': no grant will come); otherwise queues on it ('queued': the grant
     * comes as a signal — also when this is a retry and the requester holds it already).
     */
    async 'lock.take'(request: LockRequest): Promise<LockTaken> {
      const ctx = Context.current();
      try {
        await ctx.client.workflow.start(HELD_LOCK_WORKFLOW_TYPE, {
          workflowId: lockWorkflowId(request.key),
          taskQueue: ctx.info.taskQueue,
          args: [request.key, [request.requesterId], request.requesterId],
        });
        return 'held';
      } catch (error) {
        if (!isAlreadyStarted(error)) throw error;
      }
      await queueOnLock(request);
      return 'queued';
    },
  };
}

export type LockActivities = ReturnType<typeof createLockActivities>;
