// The workflow type names the worker registers (workflows/index.ts exports functions of these
// names) and clients start, signal, schedule and list by. Plain strings: sandbox-safe.

/** A runbook run (and a child runbook step's run). */
export const RUNBOOK_WORKFLOW_TYPE = 'runbookWorkflow';
/** A batch of a large foreach's items, run as a child of the runbook run. */
export const FOREACH_BATCH_WORKFLOW_TYPE = 'foreachBatchWorkflow';
/**
 * The per-resource lock that queues runs changing one service, as lock requests start it: it
 * watches its holder only while another run waits behind it.
 */
export const LOCK_WORKFLOW_TYPE = 'resourceMutexWorkflow';
/**
 * The same lock as a run starts it holding it (`lock.take`, when no lock workflow of the key runs):
 * no acquire signal and no grant for its first holder. Same workflow ids and signals.
 */
export const HELD_LOCK_WORKFLOW_TYPE = 'resourceHeldLockWorkflow';
/**
 * The lock as earlier releases started it (it watches every holder); registered so that lock
 * workflows they started still run. Same workflow ids and signals as LOCK_WORKFLOW_TYPE.
 */
export const WATCHING_LOCK_WORKFLOW_TYPE = 'resourceLockWorkflow';
/** The long-lived watcher that checks one of the worker's state files on an interval. */
export const DRIFT_WATCH_WORKFLOW_TYPE = 'driftWatchWorkflow';

/** Every workflow type tideline registers. */
export const WORKFLOW_TYPES = [
  RUNBOOK_WORKFLOW_TYPE,
  FOREACH_BATCH_WORKFLOW_TYPE,
  LOCK_WORKFLOW_TYPE,
  HELD_LOCK_WORKFLOW_TYPE,
  WATCHING_LOCK_WORKFLOW_TYPE,
  DRIFT_WATCH_WORKFLOW_TYPE,
] as const;
export type WorkflowTypeName = (typeof WORKFLOW_TYPES)[number];

/**
 * The types whose workflow code asks for no patch (a lock that changes becomes a new type): a run
 * of one never takes an old branch, whatever release started it.
 */
const PATCH_FREE_WORKFLOW_TYPES: ReadonlySet<string> = new Set<WorkflowTypeName>([
  LOCK_WORKFLOW_TYPE,
  HELD_LOCK_WORKFLOW_TYPE,
]);

/** Whether runs of this workflow type ask for no patch (and so record none). */
export function asksForNoPatch(workflowType: string): boolean {
  return PATCH_FREE_WORKFLOW_TYPES.has(workflowType);
}

/**
 * Whether a start failed because a workflow of that id runs already: the client's
 * WorkflowExecutionAlreadyStartedError, known by its name (as a test's stand-in carries it too).
 */
export function isAlreadyStarted(error: unknown): boolean {
  return (error as { name?: unknown } | undefined)?.name === 'WorkflowExecutionAlreadyStartedError';
}
