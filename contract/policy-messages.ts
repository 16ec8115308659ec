// What the worker's policies decided for a run, kept in the run's audit trail: at the start and
// before each changing step (the `policy.check` local activity, activities/policy-check.ts).
// Types and plain functions only: the workflow sandbox imports this module.
import type { JsonValue } from '../dsl/expressions';
import type { VerifiedStarter } from './admission-messages';

export const CHECK_STEP_POLICY_ACTIVITY = 'policy.check';

export type PolicyEffect = 'deny' | 'warn' | 'require-approval' | 'window';

/** One rule that applied, as the audit keeps it. */
export interface PolicyRecord {
  rule: string;
  effect: PolicyEffect;
  message: string;
  /** The step it was checked for; null at the run's start. */
  stepKey: string | null;
  /** Worker time of the check (epoch ms). */
  at: number;
  /** require-approval, and a window's override: who must approve, how many. */
  group?: string;
  count?: number;
  /** window: the calendar, whether it was open, when it opens next (epoch ms, null: never). */
  calendar?: string;
  open?: boolean;
  opensAt?: number | null;
  outside?: 'wait' | 'refuse';
}

export interface CheckStepPolicyInput {
  runbook: string;
  definitionHash: string;
  starter: VerifiedStarter;
  inputs: Record<string, JsonValue>;
  stepKey: string;
  action: string;
  /** The step's resolved `with` (secret fields left out by the workflow). */
  with: Record<string, JsonValue>;
}

export interface StepPolicyVerdict {
  records: PolicyRecord[];
  /** A deny rule applies: the step fails with POLICY_DENIED. */
  denied: boolean;
  /** A window is closed and its rule says refuse: the step fails with CHANGE_WINDOW_CLOSED. */
  refusedByWindow: boolean;
  /** A window is closed and its rule says wait: the step waits until then (epoch ms). */
  waitUntil: number | null;
  /** How long that is from the worker's now (the workflow's timer lasts this long). */
  waitMs: number | null;
  /** Approvals the step needs first (require-approval, or a window's override while closed). */
  approvals: { rule: string; group: string; count: number; override: boolean }[];
}

/** What the policies say about a step when no rule applies (or the worker has none). */
export function noPolicyVerdict(): StepPolicyVerdict {
  return { records: [], denied: false, refusedByWindow: false, waitUntil: null, waitMs: null, approvals: [] };
}
