// Starts (or signals) the lock workflow of a resource on behalf of a run. Only an activity can
// signal-with-start, so runs reach their locks through this one.
import { Context } from '@temporalio/activity';
import {
  acquireLockSignal,
  LOCK_WORKFLOW_TYPE,
  lockWorkflowId,
  type LockRequest,
} from '../contract/lock-messages';
import { createLockHolderWatch } from './lock-holder-watch';

export function createLockActivities() {
  return {
    ...createLockHolderWatch(),
    async 'lock.request'(request: LockRequest): Promise<void> {
      const ctx = Context.current();
      await ctx.client.workflow.signalWithStart(LOCK_WORKFLOW_TYPE, {
        workflowId: lockWorkflowId(request.key),
        taskQueue: ctx.info.taskQueue,
        args: [request.key],
        signal: acquireLockSignal,
        signalArgs: [request],
      });
    },
  };
}

export type LockActivities = ReturnType<typeof createLockActivities>;
