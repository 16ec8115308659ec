// What a runbook run exposes to clients: its input, its report, the progress query and the
// approval update. Shared by the workflow and every client (CLI, tests).
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';

export interface RunbookWorkflowInput {
  /** The normalised, validated definition: the run is pinned to it. */
  definition: RunbookDefinition;
  /** Input values as given; the workflow binds them (defaults, types) before any step runs. */
  inputs: Record<string, unknown>;
  /** Service locks the parent run holds already (child runbooks must not queue behind them). */
  heldLocks?: string[];
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
}

export interface PendingApproval {
  stepKey: string;
  message: string;
  /** When the default outcome applies (epoch ms). */
  deadline: number;
  default: 'approve' | 'reject';
}

export type RunStatus = 'running' | 'compensating' | 'succeeded' | 'failed' | 'cancelled';

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
  failure?: RunFailure;
}

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

export interface ApprovalDecision {
  approved: boolean;
  /** Which approval step; optional when only one is pending. */
  step?: string;
  by?: string;
  comment?: string;
}

export interface ApprovalOutcome {
  approved: boolean;
  by: string | null;
  comment: string | null;
  timedOut: boolean;
}

export const progressQuery = defineQuery<RunProgress>('progress');
export const approvalUpdate = defineUpdate<ApprovalOutcome, [ApprovalDecision]>('approval');

/** The failure type of a run that failed; its details hold the RunReport. */
export const RUNBOOK_FAILED = 'RUNBOOK_FAILED';
