// Fault rules, as accepted by the config file (`faults:`) and by `POST /__sim/faults`.
import { z } from 'zod';
import { FAULT_OUTCOMES, type FaultOutcome } from '../cloud/operation-facts';
import { ACTION_NAMES, operations, type ActionName } from '../cloud/operations';

/**
 * Scripted outcomes and the operations each one can change, from the catalogue's `faultOutcomes`:
 * `unstable` (the change ends in UNSTABLE instead of READY, and a resize does not take),
 * `stuckQueued` (the new service stays QUEUED for ever), `replicaSetError` (the replica set ends in
 * `error` instead of `active`), `peeringFailed` (the peering ends `failed`, with an `error_message`).
 */
export const OUTCOME_ACTIONS = Object.fromEntries(
  FAULT_OUTCOMES.map((outcome) => [
    outcome,
    ACTION_NAMES.filter((action) => operations[action].faultOutcomes.includes(outcome)),
  ]),
) as unknown as Readonly<Record<FaultOutcome, readonly ActionName[]>>;

export type OutcomeKind = FaultOutcome;
export const OutcomeKind = z.enum(FAULT_OUTCOMES);

export function outcomeApplies(outcome: OutcomeKind, action: ActionName): boolean {
  return operations[action].faultOutcomes.includes(outcome);
}

const ActionSelector = z.union([z.literal('*'), z.enum(ACTION_NAMES as [ActionName, ...ActionName[]])], {
  error: 'action must be an operation name such as "service.create", or "*"',
});

const RuleBase = z.strictObject({
  action: ActionSelector,
  /** Chance that a matching request triggers the rule, drawn from the seeded generator. */
  probability: z.number().min(0).max(1).optional(),
  /** How many times the rule triggers before it is spent; unlimited when absent. */
  times: z.number().int().min(1).optional(),
});

const serverErrorStatus = z.number().int().min(500).max(599);

export const FaultRuleInput = z
  .discriminatedUnion('kind', [
    RuleBase.extend({
      kind: z.literal('error'),
      status: serverErrorStatus.default(500),
      message: z.string().min(1).max(500).optional(),
    }),
    RuleBase.extend({
      kind: z.literal('rateLimit'),
      retryAfterSeconds: z.number().int().min(0).max(86_400).default(1),
      /** `date` sends an HTTP date instead of delay-seconds. */
      retryAfterFormat: z.enum(['seconds', 'date']).default('seconds'),
    }),
    RuleBase.extend({
      kind: z.literal('latency'),
      /** Real milliseconds added before the request is handled (not scaled by timeScale). */
      ms: z.number().int().min(0).max(3_600_000),
    }),
    RuleBase.extend({
      kind: z.literal('applyThenFail'),
      /** `error` answers a 5xx after the change took effect; `drop` closes the connection unanswered. */
      mode: z.enum(['error', 'drop']).default('error'),
      status: serverErrorStatus.default(500),
    }),
    RuleBase.extend({
      kind: z.literal('outcome'),
      outcome: OutcomeKind,
      /** For `peeringFailed`: the peering's `error_message`. */
      errorMessage: z.string().min(1).max(500).optional(),
    }),
  ])
  .superRefine((rule, ctx) => {
    if (rule.kind === 'outcome' && rule.action !== '*' && !outcomeApplies(rule.outcome, rule.action)) {
      ctx.addIssue({
        code: 'custom',
        path: ['action'],
        message: `outcome ${rule.outcome} applies only to ${OUTCOME_ACTIONS[rule.outcome].join(', ')}`,
      });
    }
  });
export type FaultRuleInput = z.input<typeof FaultRuleInput>;
export type FaultRuleSpec = z.output<typeof FaultRuleInput>;

/** `POST /__sim/faults` takes one rule or a list of rules. */
export const AddFaultsBody = z.union([FaultRuleInput, z.array(FaultRuleInput).min(1)]);
