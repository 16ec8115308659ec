// Cancels a runbook at every point of its run and checks that nothing is left behind: for each
// top-level step, once while the step is in progress (its API requests held open by the local
// cloud's latency fault, so the cancel lands while a call is in flight) and once right after the
// step is done. After each cancelled run the local cloud must hold what it held before.
//
// The machinery is shared with the chaos campaign's cancel round (bench/lib/cancel-runs.ts); this
// module binds it to the test stack.
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { loadRunbookFile } from '../../dsl/loader';
import {
  cancelPointsOf,
  inventory as cloudInventory,
  runAndCancel as cancelAtPoint,
  settledInventory as settledCloudInventory,
  stableInventory as stableCloudInventory,
  type CancelOutcome,
  type CancelPoint,
  type CancelTarget,
} from '../../bench/lib/cancel-runs';
import { RUNBOOKS_DIR, type RunbookStack } from './runbook-stack';

export type { CancelOutcome, CancelPoint };

function target(stack: RunbookStack): CancelTarget {
  return { api: stack.api, projectId: stack.projectId, faults: stack.cloud.cloud };
}

/** Every cancel point of a runbook in `runbooks/`: during and after each top-level step. */
export function cancelPoints(runbook: string): CancelPoint[] {
  return cancelPointsOf(loadRunbookFile(path.join(RUNBOOKS_DIR, runbook)));
}

/** What the project holds, in the terms a runbook changes, ids left out (names identify). */
export const inventory = (stack: RunbookStack): Promise<unknown> => cloudInventory(target(stack));

/** Waits until the project's inventory equals `expected` (lifecycles settle), then gives it. */
export const settledInventory = (stack: RunbookStack, expected: unknown): Promise<unknown> =>
  settledCloudInventory(target(stack), expected);

/** Waits until the cloud stops changing (two equal reads in a row), for a before-state. */
export const stableInventory = (stack: RunbookStack): Promise<unknown> => stableCloudInventory(target(stack));

/**
 * Starts the run, cancels it at the point, and gives its final report — and whether its history
 * replays on the code in the tree (`replay`: 'ok' or the nondeterminism error), as it must when a
 * worker restarts or a query reaches a worker that no longer caches the run.
 */
export async function runAndCancel(
  stack: RunbookStack,
  start: () => Promise<WorkflowHandle>,
  point: CancelPoint,
): Promise<CancelOutcome & { replay: string }> {
  let workflowId = '';
  const outcome = await cancelAtPoint(
    target(stack),
    async () => {
      const handle = await start();
      workflowId = handle.workflowId;
      return handle;
    },
    point,
  );
  return { ...outcome, replay: (await stack.replayError(workflowId)) ?? 'ok' };
}

/** A cancel point as a test title: `during create (service.create held open)`. */
export const cancelPointLabel = (point: CancelPoint): string =>
  `${point.when} ${point.step}${point.hold ? ` (${point.hold} held open)` : ''}`;
