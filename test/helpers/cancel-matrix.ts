// Cancels a runbook at every point of its run and checks that nothing is left behind: for each
// top-level step, once while the step is in progress (its API requests held open by the local
// cloud's latency fault, so the cancel lands while a call is in flight) and once right after the
// step is done. After each cancelled run the local cloud must hold what it held before.
//
// The machinery is shared with the chaos campaign's cancel round (bench/lib/cancel-runs.ts); this
// module binds it to the test stack.
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { operations, type ActionName } from '../../cloud/operations';
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

/** Set to 1 to run every cancel point of every runbook instead of the representative slice. */
export const FULL_CANCEL_MATRIX_VARIABLE = 'TIDELINE_FULL_CANCEL_MATRIX';

/**
 * The cancel points of runbooks in `runbooks/`: during and after each top-level step. `npm test`
 * takes a representative slice shared by the suite's runbooks (representativeCancelPoints, one
 * `cancelPoints` per suite); TIDELINE_FULL_CANCEL_MATRIX=1 takes them all (`npm run
 * test:cancel-matrix`).
 */
export function cancelMatrix(): { cancelPoints(runbook: string): CancelPoint[] } {
  const covered = new Set<string>();
  return {
    cancelPoints(runbook) {
      const all = cancelPointsOf(loadRunbookFile(path.join(RUNBOOKS_DIR, runbook)));
      return process.env[FULL_CANCEL_MATRIX_VARIABLE] === '1'
        ? all
        : representativeCancelPoints(all, covered);
    },
  };
}

/** What a point holds open, as far as cancelling goes: a create, a change, a read, or nothing. */
function heldKind(point: CancelPoint): string {
  if (point.hold === undefined) return 'nothing';
  const kind = Object.hasOwn(operations, point.hold) ? operations[point.hold as ActionName].kind : 'unknown';
  return kind === 'delete' ? 'mutate' : kind;
}

/** The way a cancel meets a run at this point: during or after a step, with what in flight. */
export const cancelCase = (point: CancelPoint): string => `${point.when}:${heldKind(point)}`;

/** A cancel while a create or change is in flight: what it leaves to undo is the runbook's own. */
export const cancelsAChange = (point: CancelPoint): boolean =>
  point.when === 'during' && ['create', 'mutate'].includes(heldKind(point));

/**
 * A runbook's slice of its cancel points: its first point that cancels a create in flight and its
 * first that cancels a change in flight (how a runbook undoes its work is its own), the first point
 * of each other way a cancel can meet a run — after a step, during a read, with nothing in flight
 * (an approval, the end) — that no runbook before it in `covered` had (how the engine answers those
 * does not depend on the runbook), and the runbook's last point. In the runbook's order.
 */
export function representativeCancelPoints(
  points: readonly CancelPoint[],
  covered: Set<string> = new Set(),
): CancelPoint[] {
  const own = new Set<string>();
  const last = points.at(-1);
  return points.filter((point) => {
    const key = cancelCase(point);
    const first = !covered.has(key);
    const firstChangeHere = cancelsAChange(point) && !own.has(key);
    covered.add(key);
    own.add(key);
    return first || firstChangeHere || point === last;
  });
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
