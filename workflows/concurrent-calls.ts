// Which calls run as local activities when steps run side by side (PATCHES.concurrentCallsAsTasks).
//
// A local activity's result reaches the workflow in an activation of its own. Temporal's core SDK
// (1.24) may record the activity's marker in one workflow task but hand the result to the workflow
// only in the next one — when the worker was answering a query (`tideline run` and `status` ask
// for progress) at the moment the activity finished. Replay hands it over one task earlier. A run
// with one line of steps does the same thing either way; a run with branches side by side does
// not: in the next task the other branches may act first (a lock granted, a wait done), and on
// replay the resumed branch's command comes before theirs — the run fails as nondeterministic
// (seen in workflows-cancel-anywhere-maintenance: `Activity machine does not handle this event`). An
// activity task's result is a history event and is read at the same point on replay, so calls
// that may run beside other steps are activity tasks; a line of steps keeps its local activities.
import type { StepDefinition } from '../dsl/definition';
import { stepTree } from '../dsl/step-tree';
import type { Interpreter } from './interpreter';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';

/**
 * Whether steps can run side by side: anywhere in the tree (branches, foreach bodies,
 * compensations), a foreach not limited to 1 at a time, or a parallel of more than one branch.
 */
export function hasConcurrentSteps(steps: readonly StepDefinition[]): boolean {
  return stepTree(steps).some(
    ({ step }) =>
      (step.kind === 'parallel' && step.branches.length > 1) ||
      (step.kind === 'foreach' && step.concurrency !== 1),
  );
}

/**
 * Asked once at the start of a run (before any call, so never in a task that resolves a local
 * activity): whether calls beside other steps run as activity tasks. Only a run that can have
 * such calls asks (and records the patch); runs started earlier replay with local activities.
 */
export function concurrentCallsAsTasks(steps: readonly StepDefinition[]): boolean {
  return hasConcurrentSteps(steps) && hasPatch(PATCHES.concurrentCallsAsTasks);
}

/** Runs `body` as `lanes` lanes side by side: calls inside count as concurrent while it runs. */
export async function sideBySide<T>(
  interpreter: Interpreter,
  lanes: number,
  body: () => Promise<T>,
): Promise<T> {
  if (lanes < 2) return body();
  interpreter.concurrentLanes++;
  try {
    return await body();
  } finally {
    interpreter.concurrentLanes--;
  }
}
