// What a hold action is judged on besides its signature: the worker's current policies, for the
// person acting, over what the action makes the run do — the run's inputs after it (start rules)
// and the changes it leads to that are known now (step rules): the held step a retry runs again
// and the later changes whose `with` resolves already. `hold.verify` answers the verdict
// (activities/hold-judge.ts). Types only: the workflow sandbox imports this module.
import type { JsonValue } from '../dsl/expressions';
import type { VerifiedStarter } from './admission-messages';
import type { PlannedChange } from './approval-messages';
import type { PolicyRecord } from './policy-messages';

/** Why the policies refuse a hold action (the codes a start or a step would fail with). */
export const HOLD_POLICY_REFUSAL_CODES = ['POLICY_DENIED', 'CHANGE_WINDOW_CLOSED'] as const;
export type HoldPolicyRefusalCode = (typeof HOLD_POLICY_REFUSAL_CODES)[number];

export interface HoldJudgeRequest {
  runbook: string;
  definitionHash: string;
  /** The run's bound inputs as the action leaves them (secret values masked). */
  inputs: Record<string, JsonValue>;
  /** The changes the action leads to that are resolved now, the held step's first. */
  changes: PlannedChange[];
}

/** What an accepted action's verdict adds: who acted, as the worker knows them now. */
export interface HoldActor {
  /** The person acting, verified (signed) or a claim, with their groups (verified only). */
  actor: VerifiedStarter;
  /** The worker's policies now have rules evaluated before steps. */
  checksSteps: boolean;
}

/** A refusal by the policies: the records that decided it, for the run's audit. */
export interface HoldPolicyRefusal {
  code: HoldPolicyRefusalCode;
  reason: string;
  policies: PolicyRecord[];
}
