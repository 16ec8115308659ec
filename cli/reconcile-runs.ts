// The repair runs of `tideline reconcile`: each planned repair started as an ordinary run (the
// start path of `tideline run`, so the worker's catalogue, verified starter, locks, policies,
// change windows and approvals apply), then watched until it ends or stops where reconcile must
// not wait — an approval a person has to give, a closed change window, a step held for an
// operator. Those are reported with the run's id and the commands that act on it; the run goes on.
import type { WorkflowHandle } from '@temporalio/client';
import { ADMISSION_REFUSAL_CODES, type AdmissionRefusalCode } from '../contract/admission-messages';
import type { PendingApproval, RunbookWorkflowInput } from '../contract/run-messages';
import type { PlannedRepair } from '../state/repair-plan';
import type { CliContext } from './context';
import { isCliError } from './errors';
import { observeRun, readOutcome, type RunSnapshot } from './run-observer';
import { newRunId } from './commands/run';
import { startedBy, startRunbookRun } from './start-run';
import type { TemporalSession } from './temporal';

export type RepairOutcome =
  | { kind: 'repaired' }
  /** The worker refused the run or one of its changes (catalogue, policy deny, closed window). */
  | { kind: 'refused'; code: AdmissionRefusalCode; reason: string; stepKey?: string }
  | { kind: 'failed'; status: string; code: string; reason: string; stepKey?: string }
  | { kind: 'awaiting-approval'; approval: PendingApproval }
  /** A closed change window the run waits out (epoch ms it opens). */
  | { kind: 'awaiting-window'; until: number; rule: string; stepKey?: string }
  | { kind: 'held'; stepKey: string; reason: string }
  | { kind: 'not-started'; code: string; reason: string }
  /** Ctrl-C stopped the watching; the run goes on. */
  | { kind: 'detached' };

export interface RepairRun {
  repair: PlannedRepair;
  workflowId: string;
  outcome: RepairOutcome;
}

export interface RepairRunOptions {
  by: string | undefined;
  keyFile: string | undefined;
  /** Told when a run starts and when watching it ends. */
  onStarted: (repair: PlannedRepair, workflowId: string) => void;
  onEnded: (run: RepairRun) => void;
}

const POLL_MS = 1_000;

function isRefusal(code: string): code is AdmissionRefusalCode {
  return (ADMISSION_REFUSAL_CODES as readonly string[]).includes(code);
}

/** Where a running run stops for a person or a window, or undefined while it just runs. */
function stoppedAt(snapshot: RunSnapshot, now: number): RepairOutcome | undefined {
  const progress = snapshot.progress;
  if (progress === undefined) return undefined;
  if (progress.status === 'held') {
    const held = progress.held?.[0];
    return { kind: 'held', stepKey: held?.stepKey ?? '', reason: held?.error.message ?? 'held' };
  }
  if (progress.pendingApproval !== undefined)
    return { kind: 'awaiting-approval', approval: progress.pendingApproval };
  if (progress.windowWait !== undefined)
    return {
      kind: 'awaiting-window',
      until: progress.windowWait.until,
      rule: progress.windowWait.rule,
      stepKey: progress.windowWait.stepKey,
    };
  const startWait = progress.admission?.waitUntil;
  if (startWait !== undefined && startWait > now) {
    const rule = progress.admission?.policies.find((record) => record.effect === 'window' && !record.open);
    return { kind: 'awaiting-window', until: startWait, rule: rule?.rule ?? '' };
  }
  return undefined;
}

async function endedOutcome(
  session: TemporalSession,
  handle: WorkflowHandle,
  snapshot: RunSnapshot,
): Promise<RepairOutcome> {
  const outcome = await readOutcome(session, handle, snapshot);
  if (outcome.status === 'succeeded') return { kind: 'repaired' };
  const failure = outcome.failure;
  const stepKey =
    failure?.stepKey !== undefined && failure.stepKey !== '' ? { stepKey: failure.stepKey } : {};
  if (failure !== undefined && isRefusal(failure.type))
    return { kind: 'refused', code: failure.type, reason: failure.message, ...stepKey };
  return {
    kind: 'failed',
    status: outcome.status,
    code: failure?.type ?? outcome.status.toUpperCase(),
    reason: failure?.message ?? `the run ${outcome.status}`,
    ...stepKey,
  };
}

function pause(ms: number, interrupted: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void interrupted.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Starts every repair, then watches them together until each has ended or stopped. */
export async function runRepairs(
  ctx: CliContext,
  session: TemporalSession,
  repairs: readonly PlannedRepair[],
  options: RepairRunOptions,
): Promise<RepairRun[]> {
  const runs: RepairRun[] = [];
  const watched: { run: RepairRun; handle: WorkflowHandle }[] = [];
  for (const repair of repairs) {
    const workflowId = newRunId(`${repair.definition.name}-${repair.service.name}`);
    const input: RunbookWorkflowInput = {
      definition: repair.definition,
      inputs: repair.inputs,
      ...startedBy(ctx, workflowId, options.by, options.keyFile),
    };
    const run: RepairRun = { repair, workflowId, outcome: { kind: 'detached' } };
    runs.push(run);
    try {
      watched.push({ run, handle: await startRunbookRun(ctx, session, input, workflowId) });
      options.onStarted(repair, workflowId);
    } catch (error) {
      if (!isCliError(error)) throw error;
      run.outcome = { kind: 'not-started', code: error.code, reason: error.message };
      options.onEnded(run);
    }
  }
  let interrupted = false;
  const interruption = ctx.interrupted.then(() => void (interrupted = true));
  let open = watched;
  while (open.length > 0 && !interrupted) {
    const still: typeof open = [];
    for (const entry of open) {
      const snapshot = await observeRun(session, entry.handle);
      const outcome = snapshot.closed
        ? await endedOutcome(session, entry.handle, snapshot)
        : stoppedAt(snapshot, Date.now());
      if (outcome === undefined) still.push(entry);
      else {
        entry.run.outcome = outcome;
        options.onEnded(entry.run);
      }
    }
    open = still;
    if (open.length > 0) await pause(POLL_MS, interruption);
  }
  return runs;
}
