// The repair runs of `tideline reconcile` on a Temporal session: each planned repair started
// through the start path of `tideline run` (so the worker's catalogue, verified starter, locks,
// policies, change windows and approvals apply), read as `tideline status` reads a run, and
// watched by stack/repair-runs.ts until it ends or stops for a person, a window or an operator.
import type { RunbookWorkflowInput } from '../contract/run-messages';
import type { PlannedRepair } from '../state/repair-plan';
import { runRepairs as watchRepairs, type RepairRun, type RepairRunEvents } from '../stack/repair-runs';
import type { CliContext } from './context';
import { isCliError } from './errors';
import { observeRun, readOutcome } from './run-observer';
import { newRunId } from './commands/run';
import { starterOf, startRunbookRun } from './start-run';
import type { TemporalSession } from './temporal';

export interface RepairRunOptions extends RepairRunEvents {
  by: string | undefined;
  keyFile: string | undefined;
}

const POLL_MS = 1_000;

/** Starts every repair, then watches them together until each has ended or stopped. */
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
        const workflowId = newRunId(`${repair.definition.name}-${repair.service.name}`);
        const input: RunbookWorkflowInput = {
          definition: repair.definition,
          inputs: repair.inputs,
        };
        const starter = starterOf(ctx, options.by, options.keyFile);
        return { workflowId, start: () => startRunbookRun(ctx, session, input, workflowId, starter) };
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
