// The repair runs of `tideline reconcile` on a Temporal session: each planned repair started
// through the start path of `tideline run` (so the worker's catalogue, verified starter, locks,
// policies, change windows and approvals apply), read as `tideline status` reads a run, and
// watched by stack/repair-runs.ts until it ends or stops for a person, a window or an operator.
import type { WorkflowHandle } from '@temporalio/client';
import type { RunbookWorkflowInput } from '../contract/run-messages';
import type { DriftFinding } from '../state/drift-check';
import { repairRunId, startOrJoinRepair } from '../worker/repair-run-id';
import type { PlannedRepair } from '../state/repair-plan';
import { runRepairs as watchRepairs, type RepairRun, type RepairRunEvents } from '../stack/repair-runs';
import type { CliContext } from './context';
import { isCliError } from './errors';
import { observeRun, readOutcome } from './run-observer';
import { starterOf, startRunbookRun } from './start-run';
import type { TemporalSession } from './temporal';

export interface RepairRunOptions extends RepairRunEvents {
  by: string | undefined;
  keyFile: string | undefined;
  /** The name of the state file's state (its `name`), part of each repair's id. */
  state: string;
  /** The drift the repairs mend, as read at `checkedAt`. */
  findings: readonly DriftFinding[];
  checkedAt: Date;
}

const POLL_MS = 1_000;

/**
 * Starts every repair, then watches them together until each has ended or stopped. A repair's id
 * is derived from the drift it mends (worker/repair-run-id.ts), as a drift watcher's is: a run of
 * it that is open, or closed since the drift was read, is joined rather than started again.
 */
export function runRepairs(
  ctx: CliContext,
  session: TemporalSession,
  repairs: readonly PlannedRepair[],
  options: RepairRunOptions,
): Promise<RepairRun[]> {
  return watchRepairs(
    repairs,
    {
      prepare: (repair) => {
        const baseId = repairRunId({
          state: options.state,
          runbook: repair.runbook,
          service: repair.service,
          rules: repair.rules,
          findings: options.findings,
        });
        const input: RunbookWorkflowInput = {
          definition: repair.definition,
          inputs: repair.inputs,
        };
        const starter = starterOf(ctx, options.by, options.keyFile);
        return {
          workflowId: baseId,
          start: async () => {
            let handle: WorkflowHandle | undefined;
            const { workflowId, joined } = await startOrJoinRepair(
              session.client,
              baseId,
              options.checkedAt,
              async (id) => {
                handle = await startRunbookRun(ctx, session, input, id, starter, true);
              },
            );
            return joined || handle === undefined
              ? { joined: session.client.workflow.getHandle(workflowId) }
              : handle;
          },
        };
      },
      notStarted: (error) => (isCliError(error) ? { code: error.code, reason: error.message } : undefined),
      observe: (handle) => observeRun(session, handle),
      ended: (handle, snapshot) => readOutcome(session, handle, snapshot),
      interrupted: ctx.interrupted,
      pollMs: POLL_MS,
    },
    options,
  );
}
