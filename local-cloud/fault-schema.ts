// Fault rules, as accepted by the config file (`faults:`) and by `POST /__sim/faults`.
import { z } from 'zod';
import { FAULT_OUTCOMES, type FaultOutcome } from '../cloud/operation-facts';
import { MetricSeries } from '../cloud/models';
import { ACTION_NAMES, operations, type ActionName } from '../cloud/operations';
import { answerFieldProblem, AnswerFieldPath } from './answer-fields';
import { METRIC_SERIES_NAMES } from './metrics';

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

/** The operations that answer metric series (a list of MetricSeries): what a metricAnomaly changes. */
export const METRIC_SERIES_ACTIONS: readonly ActionName[] = ACTION_NAMES.filter((action) => {
  const response = operations[action].response;
  return response instanceof z.ZodArray && response.element === MetricSeries;
});

/** A series every service of the local cloud has (metrics.ts). */
export const MetricSeriesName = z.enum(METRIC_SERIES_NAMES as [string, ...string[]]);

/** The series a metricAnomaly changes when it names none. */
export const DEFAULT_ANOMALY_SERIES = 'timescale_cloud_system_cpu_usage_millicores';

/** Whether the answer of `action` has a field at `path` that may be left out (answer-fields.ts). */
export function omitFieldApplies(path: string, action: ActionName): boolean {
  return answerFieldProblem(operations[action].response, path) === undefined;
}

/** Why no operation that `action` selects may leave out `path`; undefined when one may. */
function omitFieldProblem(path: string, action: ActionName | '*'): string | undefined {
  if (action !== '*') {
    const problem = answerFieldProblem(operations[action].response, path);
    return problem === undefined ? undefined : `${action}: ${problem}`;
  }
  return ACTION_NAMES.some((name) => omitFieldApplies(path, name))
    ? undefined
    : `no operation's answer has an optional field ${path}; check the path against the catalogue (cloud/models.ts)`;
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
      /** The error body's `details`, the actionable part; absent when not given. */
      details: z.string().min(1).max(500).optional(),
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
    RuleBase.extend({
      kind: z.literal('metricAnomaly'),
      /** The service whose series read `value`: its id or its name. */
      service: z.string().min(1).max(100),
      series: MetricSeriesName.default(DEFAULT_ANOMALY_SERIES),
      /** What every bucket of the series reads from `from` on, on every node of the service. */
      value: z.number().min(0),
      /** When the anomaly starts (RFC 3339); when absent, the moment the rule is added. */
      from: z.iso.datetime({ offset: true }).optional(),
    }),
    RuleBase.extend({
      kind: z.literal('omitField'),
      /** The field the answer leaves out, as a dotted path (`resources.0.spec.cpu_millis`). */
      field: AnswerFieldPath,
      /**
       * Send the field as null instead of leaving it out: what the API does with a field its Go
       * type holds without omitempty, such as a service's `resources` in the current dialect.
       */
      asNull: z.boolean().default(false),
    }),
  ])
  .superRefine((rule, ctx) => {
    if (rule.kind === 'omitField') {
      const problem = omitFieldProblem(rule.field, rule.action);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['field'], message: problem });
    }
    if (
      rule.kind === 'metricAnomaly' &&
      rule.action !== '*' &&
      !METRIC_SERIES_ACTIONS.includes(rule.action)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['action'],
        message: `metricAnomaly applies only to ${METRIC_SERIES_ACTIONS.join(', ')}`,
      });
    }
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

/** Every fault kind, in the order of the schema above. */
export const FAULT_KINDS = FaultRuleInput.options.map((option) => option.shape.kind.value);

/** `POST /__sim/faults` takes one rule or a list of rules. */
export const AddFaultsBody = z.union([FaultRuleInput, z.array(FaultRuleInput).min(1)]);
