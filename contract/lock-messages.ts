// Signals between runs and the per-resource lock workflows. Plain definitions, shared by the
// lock workflow, the runbook workflow and the activity that starts lock workflows.
import { defineSignal } from '@temporalio/workflow';

export { HELD_LOCK_WORKFLOW_TYPE, LOCK_WORKFLOW_TYPE } from './workflow-types';

export interface LockRequest {
  /** The workflow id of the run asking for the lock. */
  requesterId: string;
  key: string;
}

/** What `lock.take` did: started the lock holding it, or queued on the lock that runs. */
export type LockTaken = 'held' | 'queued';

export const acquireLockSignal = defineSignal<[LockRequest]>('tideline.lock.acquire');
export const releaseLockSignal = defineSignal<[LockRequest]>('tideline.lock.release');
/** Sent to a requester when it holds the lock. */
export const lockGrantedSignal = defineSignal<[{ key: string }]>('tideline.lock.granted');
/** Sent by a lock to its holder now and then; failing to deliver it means the holder is gone. */
export const lockPingSignal = defineSignal<[{ key: string }]>('tideline.lock.ping');

/** The lock workflow's id for a resource key such as `service/<project>/<service>`. */
export function lockWorkflowId(key: string): string {
  return `tideline-lock/${key}`;
}
