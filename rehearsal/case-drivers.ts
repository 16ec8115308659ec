// What a test case's scripted people do to its run while it goes: answer approvals (at once or
// after a delay), act on holds as an operator does (fix the faults, then retry, skip or roll back)
// and cancel. Each goes through the same workflow update or call as the CLI command it stands for,
// and settles once its script is done or the run has ended.
import type { KeyObject } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { signDecision } from '../activities/approval-signatures';
import { parseDuration } from '../dsl/durations';
import type { JsonValue } from '../dsl/expressions';
import type {
  ApprovalDecision,
  ApprovalOutcome,
  HeldStep,
  PendingApproval,
  RunProgress,
  RunStatus,
} from '../contract/run-messages';
import {
  approvalUpdate,
  progressQuery,
  retryUpdate,
  rollbackUpdate,
  skipUpdate,
} from '../contract/run-messages';
import { assertNever } from '../cloud/assert-never';
import { approvalRefusalText } from './approval-refusal';
import { resolveReferences, type CloudIds } from './cloud-references';
import type { Mismatch } from './expectations';
import { placeMismatch } from './mismatch-position';
import type { LoadedCase } from './test-file-loader';
import { namesStep } from './step-key';
import type { HoldAction } from './test-file-schema';

/** How often a driver (or the runner, for a hold) asks a running run for its progress. */
export const PROGRESS_POLL_MS = 100;

export async function progressOf(handle: WorkflowHandle): Promise<RunProgress | undefined> {
  try {
    return await handle.query(progressQuery);
  } catch {
    return undefined;
  }
}

/**
 * Cancels the run once the step named has the status asked for; settles if the run ends first.
 * With `holdCloud` the cloud's clock was stopped when the run started (case-runner.ts): it goes on
 * once the run has taken the cancel (it is no longer running) or has ended.
 */
export async function driveCancel(
  handle: WorkflowHandle,
  testCase: LoadedCase,
  ended: () => boolean,
  cloud: { releaseClock(): void },
): Promise<void> {
  const { cancel } = testCase;
  if (cancel === undefined) return;
  try {
    if (!(await cancelAt(handle, cancel.step, cancel.status, ended))) return;
    await handle.cancel();
    if (cancel.holdCloud) await until(handle, ended, (progress) => progress.status !== 'running');
  } finally {
    if (cancel.holdCloud) cloud.releaseClock();
  }
}

/** Waits for the step's status; false if the run ended first. */
async function cancelAt(
  handle: WorkflowHandle,
  step: string,
  status: string,
  ended: () => boolean,
): Promise<boolean> {
  let reached = false;
  await until(handle, ended, (progress) => {
    const record = progress.steps.find((s) => s.key === step) ?? progress.steps.find((s) => s.id === step);
    reached = record?.status === status;
    return reached;
  });
  return reached;
}

/** Asks for the run's progress until `done` holds or the run has ended. */
async function until(
  handle: WorkflowHandle,
  ended: () => boolean,
  done: (progress: RunProgress) => boolean,
): Promise<void> {
  for (;;) {
    if (ended()) return;
    const progress = await progressOf(handle);
    if (progress !== undefined && done(progress)) return;
    await delay(PROGRESS_POLL_MS);
  }
}

/** What became of a scripted approval: the run never asked it, or asked and the run ended first. */
export type ApprovalMiss = { index: number; reason: 'never-asked' | 'ended-before-answer' };

export interface ApprovalDriver {
  /** Answers each scripted approval in turn; settles once all are sent or the run ended. */
  drive(): Promise<void>;
  /** Scripted approvals that were not sent, and why. */
  missed(): ApprovalMiss[];
}

/**
 * Sends the scripted decisions as their approvals come up, each after its `after`. A decision due
 * after its approval timed out is still sent while the run goes on, as a late person would send
 * it: the run must refuse it (had it counted, the run would go on as approved, and the case's
 * expectations would say so).
 */
export function approvalDriver(
  handle: WorkflowHandle,
  testCase: LoadedCase,
  ended: () => boolean,
  signer: { runId: string; keyOf(name: string): KeyObject | undefined },
): ApprovalDriver {
  const pendingOf = async (step: string) => {
    const asked = (await progressOf(handle))?.pendingApproval;
    return asked?.stepKey === step ? asked : undefined;
  };
  let next = 0;
  let asked = false;

  async function send(
    approval: LoadedCase['approvals'][number],
    plan: PendingApproval['plan'],
  ): Promise<ApprovalOutcome | undefined> {
    const decision: ApprovalDecision = {
      approved: approval.decision === 'approve',
      step: approval.step,
      by: approval.by,
      ...(approval.comment !== undefined ? { comment: approval.comment } : {}),
    };
    const key = signer.keyOf(approval.by);
    if (key !== undefined)
      // Signed over the plan the step shows, as `tideline approve --by NAME` signs it.
      decision.signature = signDecision(key, {
        workflowId: handle.workflowId,
        runId: signer.runId,
        stepKey: approval.step,
        approved: decision.approved,
        by: approval.by,
        ...(approval.comment !== undefined && { comment: approval.comment }),
        ...(plan !== undefined && { plan }),
      });
    return handle.executeUpdate(approvalUpdate, { args: [decision] });
  }

  return {
    async drive() {
      for (const [index, approval] of testCase.approvals.entries()) {
        asked = false;
        let pending: PendingApproval | undefined;
        for (;;) {
          if (ended()) return;
          pending = await pendingOf(approval.step);
          if (pending !== undefined) break;
          await delay(PROGRESS_POLL_MS);
        }
        asked = true;
        if (approval.after !== undefined) await delay(parseDuration(approval.after));
        if (ended()) return;
        const still = await pendingOf(approval.step);
        // Refused because it came after the approval timed out: too late, as meant.
        const late = async () =>
          approval.after !== undefined && (await pendingOf(approval.step)) === undefined;
        let refused: ApprovalOutcome['refused'];
        try {
          refused = (await send(approval, (still ?? pending).plan))?.refused;
        } catch (error) {
          if (!(await late())) throw error;
        }
        // A refused decision leaves the step waiting for one the script does not send: the case
        // ends here, saying why, rather than at its timeout.
        if (refused !== undefined && !(await late()))
          throw new Error(approvalRefusalText(index, approval, refused, (still ?? pending).approvers));
        next = index + 1;
      }
    },
    missed: () =>
      testCase.approvals
        .map((_, index) => index)
        .slice(next)
        .map((index) => ({
          index,
          reason: index === next && asked ? 'ended-before-answer' : 'never-asked',
        })),
  };
}

/** A hold, told apart from a later one at the same step. */
const holdId = (held: HeldStep) => `${held.stepKey}@${held.heldAt}`;

export interface HoldDriver {
  /** Acts on each scripted hold in turn; settles once all are done or the run ended. */
  drive(): Promise<void>;
  /** Scripted actions the run never held for (it ended first), by their index in `whenHeld`. */
  unused(): number[];
  /** Whether every scripted action was taken. */
  done(): boolean;
  /** Whether `held` is a hold no scripted action was taken on. */
  isNew(held: HeldStep): boolean;
}

function holdRequest(scripted: HoldAction, held: HeldStep, ids: CloudIds): Record<string, unknown> {
  const base = {
    by: scripted.by,
    ...(scripted.reason !== undefined ? { reason: scripted.reason } : {}),
  };
  switch (scripted.action) {
    case 'retry':
      return {
        ...base,
        step: held.stepKey,
        ...(scripted.inputs !== undefined ? { inputs: resolveReferences(scripted.inputs, ids) } : {}),
        ...(scripted.with !== undefined ? { with: resolveReferences(scripted.with, ids) } : {}),
      };
    case 'skip':
      return {
        ...base,
        step: held.stepKey,
        output: resolveReferences((scripted.output ?? null) as JsonValue, ids),
      };
    case 'rollback':
      return base;
    default:
      return assertNever(scripted.action);
  }
}

const HOLD_UPDATES = { retry: retryUpdate, skip: skipUpdate, rollback: rollbackUpdate } as const;

export function holdDriver(
  handle: WorkflowHandle,
  testCase: LoadedCase,
  cloud: { ids: CloudIds; fixFaults(): void },
  ended: () => boolean,
): HoldDriver {
  const actedOn = new Set<string>();
  let next = 0;
  const newHolds = (progress: RunProgress | undefined) =>
    progress?.status === 'held' ? (progress.held ?? []).filter((held) => !actedOn.has(holdId(held))) : [];

  async function nextHold(scripted: HoldAction, index: number): Promise<HeldStep | undefined> {
    for (;;) {
      if (ended()) return undefined;
      const fresh = newHolds(await progressOf(handle));
      if (fresh.length > 0) {
        const wanted = scripted.step;
        const held = wanted === undefined ? fresh[0] : fresh.find((h) => namesStep(h.stepKey, wanted));
        if (held !== undefined) return held;
        throw new Error(
          `whenHeld[${index}] expects step ${wanted ?? ''} to be held, but the run holds at ${fresh.map((h) => h.stepKey).join(', ')}`,
        );
      }
      await delay(PROGRESS_POLL_MS);
    }
  }

  return {
    async drive() {
      for (const [index, scripted] of testCase.whenHeld.entries()) {
        const held = await nextHold(scripted, index);
        if (held === undefined) return;
        actedOn.add(holdId(held));
        if (scripted.fixFaults) cloud.fixFaults();
        try {
          await handle.executeUpdate(HOLD_UPDATES[scripted.action] as typeof retryUpdate, {
            args: [holdRequest(scripted, held, cloud.ids)],
          });
        } catch (error) {
          const reason = (error as { cause?: { message?: string } }).cause?.message;
          throw new Error(
            `whenHeld[${index}]: the run refused the ${scripted.action} of ${held.stepKey}: ${reason ?? String(error)}`,
          );
        }
        next = index + 1;
      }
    },
    unused: () => testCase.whenHeld.map((_, index) => index).slice(next),
    done: () => next === testCase.whenHeld.length,
    isNew: (held) => !actedOn.has(holdId(held)),
  };
}

/**
 * What the case scripted but the run never needed — a hold action it did not hold for, an
 * approval it never asked or ended before answering — each a mismatch at its place in the file.
 */
export function unusedScript(
  testCase: LoadedCase,
  unusedHolds: readonly number[],
  missedApprovals: readonly ApprovalMiss[],
  status: RunStatus,
): Mismatch[] {
  return [
    ...unusedHolds.map((index) => ({
      what: `whenHeld[${index}]`,
      expected: `a hold to ${testCase.whenHeld[index]?.action ?? 'act on'}`,
      actual: `the run ended ${status} without holding again`,
    })),
    ...missedApprovals.map(({ index, reason }) => ({
      what: `approvals[${index}]`,
      expected: `the approval of ${testCase.approvals[index]?.step ?? 'its step'} asked and answered`,
      actual:
        reason === 'never-asked'
          ? `the run ended ${status} without asking for it`
          : `the run ended ${status} before the answer was due`,
    })),
  ].map((mismatch) => placeMismatch(testCase, mismatch, 'case'));
}
