// What the worker decides about a run before any step: whether its definition is in the worker's
// runbook catalogue, who started it (a signed start verified against the registered keys, or an
// unverified claim) and that person's groups, and what the worker's policies say at the start.
// The `run.admit` local activity answers it (activities/admission.ts); a child runbook or a batch
// inherits its parent's. Types and plain functions only: the workflow sandbox imports this module.
import type { RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import type { SignedStart } from './approval-messages';
import type { NotifyPlanResult } from './notification-messages';
import type { PolicyRecord } from './policy-messages';

export const ADMIT_RUN_ACTIVITY = 'run.admit';

/** Why a run was refused at its start; stable codes (clients match on them, never on messages). */
export const ADMISSION_REFUSAL_CODES = [
  /** The definition is not one the worker's catalogue allows (name and content hash). */
  'RUNBOOK_NOT_ALLOWED',
  /** A policy rule with `effect: deny` applies (policy-messages.ts). */
  'POLICY_DENIED',
  /** A policy's change window is closed and the rule says `outside: refuse`. */
  'CHANGE_WINDOW_CLOSED',
  /**
   * The start's signature was used before: a run's own by another run, a schedule's by a run its
   * schedule (as it was when signed) did not start.
   */
  'START_REPLAYED',
] as const;
export type AdmissionRefusalCode = (typeof ADMISSION_REFUSAL_CODES)[number];

export interface AdmitRunInput {
  workflowId: string;
  /** The run asking (a start signature is claimed for it). */
  runId: string;
  /** The task queue the run was started on (a start signature covers it). */
  taskQueue: string;
  /** When the run started (epoch ms): a start signature must have been made shortly before. */
  runStartedAt: number;
  /** The definition as the run received it (a local activity's input is not kept in history). */
  definition: RunbookDefinition;
  /** The bound inputs, for policies. */
  inputs: Record<string, JsonValue>;
  /** The inputs as the start gave them (a start signature covers them). */
  givenInputs?: Record<string, unknown>;
  startedBy?: SignedStart;
}

/** The run's starter as the worker sees it. */
export interface VerifiedStarter {
  /** The name given at the start; null when none was (a raw start without `startedBy`). */
  by: string | null;
  /** Its start signature verified with a key registered for `by`. */
  verified: boolean;
  /** Why not, when not verified. */
  reason?: string;
  /** The groups of the worker configuration that hold `by` (verified starters only). */
  groups: string[];
}

export interface Admission {
  allowed: boolean;
  /** Set when refused. */
  code?: AdmissionRefusalCode;
  reason?: string;
  /** `catalog`: only catalogue definitions run; `development`: any definition (ad-hoc). */
  mode: 'catalog' | 'development';
  /** SHA-256 (hex) of the definition's canonical JSON: what approvals and policies name. */
  definitionHash: string;
  /** The catalogue entry the definition matched (its file, relative to its source folder). */
  catalogEntry?: { name: string; file: string };
  starter: VerifiedStarter;
  /** The policy rules that applied at the start (deny, warn, windows, approvals asked for). */
  policies: PolicyRecord[];
  /**
   * The signed approvals the start's rules ask for before the first step (a quorum of the group,
   * never the starter): each `require-approval` rule that applies, and the `override` of a closed
   * window (`override`: granted, the run does not wait for the window). Absent when none applies,
   * and in the answers of workers that did not ask them yet: those runs replay as they ran.
   */
  startApprovals?: { rule: string; group: string; count: number; override?: true }[];
  /** Whether the worker has rules that apply to steps: each changing step is then checked. */
  checksSteps: boolean;
  /**
   * Given to a child run or a batch: the people who acted on the parent with a hold action, who
   * answer for its changes like the starter (absent: none).
   */
  actors?: VerifiedStarter[];
  /** A change window closed at the start whose rule says wait: the run waits until then (epoch ms). */
  waitUntil?: number;
  /** How long that is from the worker's now. */
  waitMs?: number;
  /**
   * Which of the worker's notification targets hear the run, and the targets its runbook names
   * that the worker lacks; absent when there are neither. Only the run itself reads it: a child
   * or a batch is given its parent's admission without it.
   */
  notifications?: NotifyPlanResult;
}
