// Watches the run that holds a lock and returns once it has closed (completed, failed, cancelled,
// terminated, timed out) — a run that was terminated never sends its release, so the lock workflow
// learns of it here. Describing the run from an activity adds nothing to the holder's history (a
// ping signal would add events to a run that may hold its lock for days), and the lock workflow's
// history gains one activity per watch window instead of events per check.
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';

export interface WatchHolderInput {
  key: string;
  /** The holder's workflow id. */
  holderId: string;
  /** Return `holding` after this long, so one attempt stays bounded (the lock watches again). */
  windowMs: number;
  /** Between two looks at the holder; bounds how late a closed holder is noticed. */
  pollMs: number;
}

export type WatchHolderResult = 'gone' | 'holding';

export function createLockHolderWatch() {
  return {
    async 'lock.watchHolder'(input: WatchHolderInput): Promise<WatchHolderResult> {
      const ctx = Context.current();
      const handle = ctx.client.workflow.getHandle(input.holderId);
      const until = Date.now() + input.windowMs;
      for (;;) {
        ctx.heartbeat();
        try {
          const { status } = await handle.describe();
          if (status.name !== 'RUNNING') return 'gone';
        } catch (error) {
          // Unknown id (or history already deleted by retention): nobody can release this lock.
          if (error instanceof WorkflowNotFoundError) return 'gone';
          throw error;
        }
        if (Date.now() >= until) return 'holding';
        // Throws once the lock workflow cancels the watch (the holder released the lock).
        await ctx.sleep(input.pollMs);
      }
    },
  };
}
