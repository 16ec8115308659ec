// What a runbook run exposes to clients: its input, its report, the progress query and the
// approval update. Shared by the workflow and every client (CLI, tests).
import type { NotificationSummary } from './notification-messages';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { OnFailurePolicy, RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import type { RunFailureCode } from './failure-codes';
import type {
  ApprovalAuditEntry,
  ApprovalPlan,
  ApprovalRefusalCode,
  ApprovalSignature,
  HoldRefusalCode,
  HoldSignature,
  SignedStart,
} from './approval-messages';
import type { Admission } from './admission-messages';
import type { PolicyRecord } from './policy-messages';

export interface RunbookWorkflowInput {
  /** The normalised, validated definition: the run is pinned to it. */
  definition: RunbookDefinition;
  /** Input values as given; the workflow binds them (defaults, types) before any step runs. */
  inputs: Record<string, unknown>;
  /** Service locks the parent run holds already (child runbooks must not queue behind them). */
  heldLocks?: string[];
  /** Overrides every step's and the runbook's `onFailure` for this run (`run --on-failure`). */
  onFailure?: OnFailurePolicy;
  /**
   * Who started the run (`tideline run`), signed when the starter has an approval key; read only
   * by approval steps with `approvers` and `allowSelfApproval: false`.
   */
  startedBy?: SignedStart;
  /** Set by a parent run for its child runbooks: the parent's admission (ignored without a parent). */
  admission?: Admission;
}

export type StepStatus =
  | 'pending'
  | 'running'
  | 'done'
  | 'failed'
  | 'skipped'
  | 'compensating'
  | 'compensated'
  | 'compensation-failed';

export interface StepRecord {
  /** Unique within the run: the step id, prefixed for steps inside a foreach (`each[2].stop`). */
  key: string;
  id: string;
  kind: string;
  name?: string;
  status: StepStatus;
  startedAt?: number;
  endedAt?: number;
  /** Why the step failed (or its compensation did); never holds a secret value. */
  error?: { type: string; message: string };
  /** For a wait step: what it is polling for. */
  waitingFor?: string;
  /** Set when the step is part of a compensation (undoing `compensates`). */
  compensates?: string;
  /** The action of a call or wait step, e.g. `service.create`. */
  action?: string;
  /**
   * The ids the step acted on or created (service, VPC, peering, replica set; never a secret), so
   * a report can say "created service X … deleted by compensation".
   */
  resources?: StepResource[];
  /**
   * For a call run as a local activity: how many attempts it took, as the call itself reported
   * (contract/call-attempts.ts; summed over the times an operator retried the step). Absent for
   * other steps, which the history tells, and for a local call that timed out or was cancelled.
   */
  callAttempts?: number;
}

export interface StepResource {
  type: 'service' | 'vpc' | 'peering' | 'replica-set';
  id: string;
  /** The step created it (a `create` call's answer), rather than naming it in its input. */
  created?: true;
}

export interface PendingApproval {
  stepKey: string;
  message: string;
  /** When the default outcome applies (epoch ms). */
  deadline: number;
  default: 'approve' | 'reject';
  /** Set when the step names approvers: who may decide, and how many approvals it needs. */
  approvers?: string[];
  minApprovals?: number;
  allowSelfApproval?: boolean;
  /** Who approved so far (steps with approvers). */
  approvedBy?: string[];
  /** Runs the worker admitted: the changes this approval guards, which a decision signs. */
  plan?: ApprovalPlan;
}

/** `held`: running, but a failed step waits for an operator (retry, skip or rollback). */
export type RunStatus = 'running' | 'held' | 'compensating' | 'succeeded' | 'failed' | 'cancelled';

export interface RunProgress {
  runbook: string;
  status: RunStatus;
  startedAt: number;
  endedAt?: number;
  steps: StepRecord[];
  pendingApproval?: PendingApproval;
  /** The service lock the run is queued on, e.g. `service/<project>/<service>`. */
  waitingForLock?: string;
  /** The service locks the run holds. */
  locks?: string[];
  /**
   * When the run asked for each of its run-wide service locks and got it (workflow time), so the
   * report of a finished run can say how long it queued behind another run.
   */
  lockWaits?: LockWait[];
  failure?: RunFailure;
  /** Failed steps that hold the run (`onFailure: hold`), waiting for retry, skip or rollback. */
  held?: HeldStep[];
  /** What operators did to held steps (and hold timeouts), oldest first. */
  actions?: OperatorAction[];
  /** Every decision sent to an approval step with `approvers`, counted or refused, oldest first. */
  approvals?: ApprovalAuditEntry[];
  /** Deliveries to notification targets so far (absent before the first); failures are kept. */
  notifications?: NotificationSummary;
  /** What the worker decided at the start (runs it admitted): catalogue, starter, policies. */
  admission?: Admission;
  /** What the worker's policies said before the run's changing steps, oldest first. */
  policies?: PolicyRecord[];
  /** A change window the run waits for before a step (epoch ms it opens). */
  windowWait?: { stepKey: string; rule: string; calendar: string; until: number };
}

export interface LockWait {
  key: string;
  requestedAt: number;
  /** Absent while queued, and when the run ended (cancelled) before it got the lock. */
  acquiredAt?: number;
}

export interface HeldStep {
  stepKey: string;
  error: { type: string; message: string };
  heldAt: number;
  /** When the run rolls back on its own (epoch ms). */
  deadline: number;
}

export interface OperatorAction {
  action: 'retry' | 'skip' | 'rollback' | 'hold-timeout';
  /** The held step acted on (rollback: every held step). */
  stepKey: string;
  by: string | null;
  reason: string | null;
  at: number;
  /** retry: the names of the inputs changed (never their values). */
  inputs?: string[];
  /** retry: the names of the step's `with` fields changed (never their values). */
  with?: string[];
  /** Runs the worker admitted: whether a registered key signed the action, and which. */
  verified?: boolean;
  keyId?: string;
  /** Refused (and not applied), and why. */
  refused?: { code: HoldRefusalCode; reason: string };
}

export interface HoldActionBase {
  /** Which held step; optional when only one is held. */
  step?: string;
  by?: string;
  reason?: string;
  /** Signed with the operator's approval key (holdActionPayload); required by catalogue workers. */
  signature?: HoldSignature;
}

export interface RetryRequest extends HoldActionBase {
  /** Input values to change before the step runs again (bound like at start). */
  inputs?: Record<string, unknown>;
  /**
   * Values of fields the held step's `with` sets, used instead of them from this retry on
   * (call, wait and runbook steps).
   */
  with?: Record<string, JsonValue>;
}

export interface SkipRequest extends HoldActionBase {
  /** The output the step is taken to have produced. */
  output: JsonValue;
}

export type RollbackRequest = Omit<HoldActionBase, 'step'>;

export interface RunFailure {
  stepKey: string;
  type: string;
  message: string;
}

export interface RunReport extends RunProgress {
  /** The runbook's outputs. Secret ones travel encrypted (payload codec); show them masked. */
  outputs: Record<string, JsonValue>;
  /** Names of the outputs declared `secret: true`. */
  secretOutputs: string[];
}

/**
 * The report a failed run carries: the workflow fails with its report as the failure's first
 * detail, which a client's `result()` rejects with as `error.cause.details`.
 */
export function reportInFailure(error: unknown): RunReport | undefined {
  const details = (error as { cause?: { details?: unknown[] } } | undefined)?.cause?.details;
  return details?.[0] as RunReport | undefined;
}

export interface ApprovalDecision {
  approved: boolean;
  /** Which approval step; optional when only one is pending. */
  step?: string;
  by?: string;
  comment?: string;
  /** Required by steps with `approvers` (contract/approval-messages.ts); ignored by others. */
  signature?: ApprovalSignature;
}

export interface ApprovalOutcome {
  approved: boolean;
  by: string | null;
  comment: string | null;
  timedOut: boolean;
  /** Steps with `approvers`: the decision was not counted, and why. */
  refused?: { code: ApprovalRefusalCode; reason: string };
  /** Steps with `approvers`: approvals counted so far and needed (the step goes on when equal). */
  count?: { approvals: number; needed: number };
  /** Steps with `approvers`: who approved, in order (the step's output once approved). */
  approvedBy?: string[];
}

export const progressQuery = defineQuery<RunProgress>('progress');
export const approvalUpdate = defineUpdate<ApprovalOutcome, [ApprovalDecision]>('approval');
export const retryUpdate = defineUpdate<OperatorAction, [RetryRequest]>('retry');
export const skipUpdate = defineUpdate<OperatorAction, [SkipRequest]>('skip');
export const rollbackUpdate = defineUpdate<OperatorAction, [RollbackRequest]>('rollback');

/** The failure type of a run that failed; its details hold the RunReport. */
export const RUNBOOK_FAILED = 'RUNBOOK_FAILED' satisfies RunFailureCode;
