// What a `parallel` does after its first failing branch has cancelled the others
// (PATCHES.siblingCancelSettles).
//
// Cancelling a sibling's activity task is a command, sent only when the workflow task completes.
// The failing branch's error goes on to the run's compensation, whose first undo is often a local
// activity run inside that same workflow task — for example deleting the service the sibling is
// waiting on. The sibling's wait then sees 404 and fails before the cancel request reaches the
// server; the server refuses the task's completion (it cancels an activity that has already
// ended) and the task's retry replays the sibling as failed with NOT_FOUND instead of cancelled.
// So the parallel first lets one workflow task carry the cancel requests (a 1 ms timer), and
// only then hands its failure on.
import type { StepDefinition } from '../dsl/definition';
import { stepTree } from '../dsl/step-tree';
import { CancellationScope, sleep } from '@temporalio/workflow';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';

/**
 * Asked once at the start of a run (before any call, like workflows/concurrent-calls.ts): whether
 * its parallels let their siblings' cancellation reach the server before failing. Only a run that
 * has a parallel of more than one branch asks (and records the patch).
 */
export function siblingCancelSettlesAtStart(steps: readonly StepDefinition[]): boolean {
  const hasParallel = stepTree(steps).some(
    ({ step }) => step.kind === 'parallel' && step.branches.length > 1,
  );
  return hasParallel && hasPatch(PATCHES.siblingCancelSettles);
}

/** Ends the workflow task, so the cancel requests of the branches just cancelled are sent. */
export async function sendSiblingCancellations(): Promise<void> {
  await CancellationScope.nonCancellable(() => sleep(1));
}
