// What became of a repair run, whoever started it and whoever watches it (`tideline reconcile`, a
// state case of `tideline test`, a drift watcher that repairs): read from the run's progress while
// it runs — stopped for a person, a window or an operator — and from how it ended. Plain data and
// pure functions: the workflow sandbox imports this module.
import { ADMISSION_REFUSAL_CODES, type AdmissionRefusalCode } from './admission-messages';
import type { PendingApproval, RunProgress } from './run-messages';

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
  /** The watching stopped (Ctrl-C, a deadline) before the run ended or stopped; the run goes on. */
  | { kind: 'detached' };

/** How an ended run ended: its status name and, unless it succeeded, its failure. */
export interface EndedRun {
  status: string;
  failure?: { stepKey?: string; type: string; message: string };
}

function isRefusal(code: string): code is AdmissionRefusalCode {
  return (ADMISSION_REFUSAL_CODES as readonly string[]).includes(code);
}

/** Where a running run stops for a person or a window, or undefined while it just runs. */
export function stoppedAt(progress: RunProgress | undefined, now: number): RepairOutcome | undefined {
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

/** An ended run as a repair's outcome: a refusal by the worker told from any other failure. */
export function endedOutcome(ended: EndedRun): RepairOutcome {
  if (ended.status === 'succeeded') return { kind: 'repaired' };
  const failure = ended.failure;
  const stepKey =
    failure?.stepKey !== undefined && failure.stepKey !== '' ? { stepKey: failure.stepKey } : {};
  if (failure !== undefined && isRefusal(failure.type))
    return { kind: 'refused', code: failure.type, reason: failure.message, ...stepKey };
  return {
    kind: 'failed',
    status: ended.status,
    code: failure?.type ?? ended.status.toUpperCase(),
    reason: failure?.message ?? `the run ${ended.status}`,
    ...stepKey,
  };
}
