// What `tideline plan` shows of the worker's policies (`policies:`, `calendars:` of the worker
// configuration): which rules apply at the start and before each changing step, as the plan can
// know them before the run, and what each would do. Types only; built by plan-policies.ts, printed
// by cli/output/plan-policies-text.ts and, as they are, in the JSON plan's `policies`.
import type { PolicyContext } from '../../dsl/policy-schema';

/** Signed approvals a rule asks for. */
export interface PlanApprovals {
  group: string;
  count: number;
}

/** One rule that applies, as dsl/policies.ts decides it, with times as ISO text. */
export type PlanPolicyDecision = {
  rule: string;
  message: string;
  /**
   * Set when the rule applies only because its `when` or `unless` could not be evaluated (the
   * worker fails closed): why. Before a run this is often a value the plan does not know yet.
   */
  failClosed?: string;
} & (
  | { effect: 'deny' }
  | { effect: 'warn' }
  | ({ effect: 'require-approval' } & PlanApprovals)
  | {
      effect: 'window';
      calendar: string;
      /** A `window` lets changes happen only inside it, a `freeze` none inside it. */
      calendarKind: 'window' | 'freeze';
      timezone: string;
      /** Whether the calendar lets the change happen now. */
      open: boolean;
      outside: 'wait' | 'refuse';
      /** When it next lets changes happen (now when open), ISO UTC; null: not within two years. */
      opensAt: string | null;
      /** The same time in the calendar's time zone, with its offset. */
      opensAtLocal: string | null;
      /** When the current open period ends, ISO UTC; null when closed or not within two years. */
      closesAt: string | null;
      /** Approvals that let a change through while the calendar is closed. */
      override?: PlanApprovals;
    }
);

/**
 * What the policies do to the start or a step: `denied` (POLICY_DENIED), `refused` (a closed
 * `refuse` window, or one that does not open within two years: CHANGE_WINDOW_CLOSED), `waits` for
 * the applying windows to open together, `needs-approval` (signed approvals first), or `proceeds`.
 */
export type PlanPolicyOutcome = 'denied' | 'refused' | 'waits' | 'needs-approval' | 'proceeds';

export interface PlanPolicyCheck {
  decisions: PlanPolicyDecision[];
  outcome: PlanPolicyOutcome;
  /** With `waits`: the first time every applying window is open together, ISO UTC. */
  waitUntil: string | null;
}

/**
 * The service a step changes, as the plan could know it: `read` now with service.get (as the worker
 * reads it just before the step); `none`: the step names no service, so the run's rules see a null
 * target too; `run-time`: its id is known only at run time; `unreadable`: the read failed. The
 * rules are evaluated with a null target unless `read`, and a rule reading it then applies.
 */
export type PlanPolicyTarget =
  | { source: 'read'; service: NonNullable<PolicyContext['target']> }
  | { source: 'none' }
  | { source: 'run-time' }
  | { source: 'unreadable'; id: string; reason: string };

export interface PlanStepPolicies extends PlanPolicyCheck {
  /** The plan step's key (e.g. `resize`, `resize/undo.resize_back`, `each[*].stop`). */
  key: string;
  action: string;
  target: PlanPolicyTarget;
  /** `with` fields known only at run time: the rules see them as written. */
  runTimeWith: string[];
}

export interface PlanPolicies {
  /** The worker configuration file the rules come from. */
  configFile: string | null;
  /** The time the rules and calendars were evaluated at (the CEL `now`), ISO UTC. */
  evaluatedAt: string;
  /** How many rules the configuration has. */
  rules: number;
  /**
   * Who the rules see as the starter: the name the CLI would claim (--by, else the user's name),
   * never verified by the plan, so in no group (the worker gives groups to verified starters only).
   */
  starter: { name: string; verified: false; groups: string[] };
  /** How many service.get requests the plan sent to read targets. */
  reads: number;
  start: PlanPolicyCheck;
  /** Every changing call step (action kind other than `read`), in plan order. */
  steps: PlanStepPolicies[];
}
