// The worker's policies in `tideline plan`: the rules of its configuration evaluated with the very
// engine the worker uses (dsl/policies.ts), over the context a run started now would give them —
// at the start (step and target null) and before each changing call step (action kind not
// `read`), with the step's `with` as the plan resolved it and the service it changes read now
// with service.get, as the worker reads it just before the step (activities/policy-check.ts).
//
// What the plan cannot know is said, not guessed: the starter is the name the CLI would claim,
// unverified and so in no group (the worker gives groups to verified starters only); a target
// whose id is known only at run time, or that cannot be read, is null, so a rule that reads it
// applies (fail closed, as in the worker); `with` values from earlier steps are shown to the rules
// as written.
import { definitionHash } from '../../activities/definition-hash';
import { isSecretFieldName } from '../../cloud/secret-fields';
import type { RunbookDefinition } from '../../dsl/definition';
import type { JsonValue } from '../../dsl/expressions';
import type { CompiledGovernance, PolicyDecision } from '../../dsl/policies';
import { evaluatePolicies } from '../../dsl/policies';
import { evaluateCondition, policyVariables } from '../../dsl/policy-cel';
import type { PolicyContext } from '../../dsl/policy-schema';
import { hasTemplate } from '../../dsl/templates';
import { formatZoned } from '../../dsl/zoned-time';
import { assertNever } from '../../cloud/assert-never';
import { MASKED } from '../../contract/approval-messages';
import { plannedCall } from './build-plan';
import type {
  PlanPolicies,
  PlanPolicyCheck,
  PlanPolicyDecision,
  PlanPolicyTarget,
  PlanStepPolicies,
} from './plan-policy-types';
import type { Plan, PlanStep } from './plan-types';

export type * from './plan-policy-types';

type Service = NonNullable<PolicyContext['target']>;

/** A service read for the rules, or why it could not be; `sent`: a request went out. */
export type PolicyTargetRead = { ok: true; service: Service } | { ok: false; reason: string; sent: boolean };

/** Reads the service a step changes (service.get, read-only). */
export type PolicyTargetReader = (projectId: string, serviceId: string) => Promise<PolicyTargetRead>;

export interface PlanPoliciesOptions {
  governance: CompiledGovernance;
  configFile: string | undefined;
  definition: RunbookDefinition;
  /** The inputs the rules see (policyInputs). */
  inputs: Record<string, JsonValue>;
  /** The name the CLI would start the run as. */
  starterName: string;
  readTarget: PolicyTargetReader;
  /** The CEL `now`, epoch ms. */
  now: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The inputs as the rules see them: every bound input, secret ones masked as the worker masks them
 * in a step's context; missing ones absent.
 */
export function policyInputs(
  definition: RunbookDefinition,
  bound: Record<string, JsonValue>,
  missing: ReadonlySet<string>,
): Record<string, JsonValue> {
  return Object.fromEntries(
    Object.entries(bound)
      .filter(([name]) => !missing.has(name) && definition.inputs[name] !== undefined)
      .map(([name, value]) => [name, definition.inputs[name]?.secret === true ? MASKED : value]),
  );
}

/** Why a rule that applies does so only because a condition could not be evaluated, if it does. */
function failure(
  governance: CompiledGovernance,
  name: string,
  variables: Record<string, unknown>,
): string | undefined {
  const rule = governance.rules.find((candidate) => candidate.spec.name === name);
  if (rule === undefined) return undefined;
  const when = evaluateCondition(rule.when, variables);
  if (!when.ok) return `\`when\` could not be evaluated (${when.error})`;
  if (!when.value || rule.unless === undefined) return undefined;
  const unless = evaluateCondition(rule.unless, variables);
  return unless.ok ? undefined : `\`unless\` could not be evaluated (${unless.error})`;
}

function planDecision(
  governance: CompiledGovernance,
  decision: PolicyDecision,
  variables: Record<string, unknown>,
): PlanPolicyDecision {
  const why = failure(governance, decision.rule, variables);
  const base = {
    rule: decision.rule,
    message: decision.message,
    ...(why !== undefined && { failClosed: why }),
  };
  switch (decision.effect) {
    case 'deny':
    case 'warn':
      return { ...base, effect: decision.effect };
    case 'require-approval':
      return { ...base, effect: decision.effect, group: decision.group, count: decision.count };
    case 'window': {
      // Compiled window rules always name a compiled calendar (dsl/policies.ts).
      const calendar = governance.calendars.get(decision.calendar);
      const timezone = calendar?.timezone ?? 'UTC';
      return {
        ...base,
        effect: 'window',
        calendar: decision.calendar,
        calendarKind: calendar?.kind ?? 'window',
        timezone,
        open: decision.open,
        outside: decision.outside,
        opensAt: decision.opensAt === null ? null : iso(decision.opensAt),
        opensAtLocal: decision.opensAt === null ? null : formatZoned(timezone, decision.opensAt),
        closesAt: decision.closesAt === null ? null : iso(decision.closesAt),
        ...(decision.override !== undefined && { override: { ...decision.override } }),
      };
    }
    default:
      return assertNever(decision, 'policy effect');
  }
}

/** The rules that apply to a context at `now`, and what they do to the start or step. */
function check(governance: CompiledGovernance, context: PolicyContext, now: number): PlanPolicyCheck {
  const verdict = evaluatePolicies(governance, context, now);
  const variables = policyVariables(context, now);
  const decisions = verdict.decisions.map((decision) => planDecision(governance, decision, variables));
  const waits = verdict.waitUntil !== null && verdict.waitUntil > now;
  const outcome = verdict.denied
    ? 'denied'
    : verdict.refusedByWindow
      ? 'refused'
      : waits
        ? 'waits'
        : decisions.some((decision) => decision.effect === 'require-approval')
          ? 'needs-approval'
          : 'proceeds';
  return {
    decisions,
    outcome,
    waitUntil: outcome === 'waits' && verdict.waitUntil !== null ? iso(verdict.waitUntil) : null,
  };
}

/** Every changing call step of a plan, nested ones too, in the order the plan prints them. */
function changingSteps(steps: readonly PlanStep[]): PlanStep[] {
  return steps.flatMap((step) => {
    const call = plannedCall(step);
    return [
      ...(call !== undefined && call.actionKind !== 'read' ? [step] : []),
      ...changingSteps(step.branches?.flatMap((branch) => branch.steps) ?? []),
      ...changingSteps(step.steps ?? []),
      ...changingSteps(step.compensate),
    ];
  });
}

/** A `with` as the rules see it: secret fields masked, as the worker masks them. */
function ruleWith(fields: Record<string, JsonValue>): Record<string, JsonValue> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [name, isSecretFieldName(name) ? MASKED : value]),
  );
}

/** Whether a value holds a template the plan could not resolve. */
function holdsTemplate(value: JsonValue): boolean {
  if (hasTemplate(value)) return true;
  if (Array.isArray(value)) return value.some(holdsTemplate);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsTemplate);
  return false;
}

/**
 * Evaluates the worker's rules for a plan: at the start, then before each changing step. Each
 * service is read at most once; a read that fails leaves that step's target null.
 */
export async function planPolicies(plan: Plan, options: PlanPoliciesOptions): Promise<PlanPolicies> {
  const { governance, now } = options;
  const starter = { name: options.starterName, verified: false as const, groups: [] as string[] };
  const runbook = { name: options.definition.name, hash: definitionHash(options.definition) };
  const common = { runbook, starter: { ...starter, groups: [] }, inputs: options.inputs };
  const start = check(governance, { ...common, step: null, target: null }, now);
  const reads = new Map<string, Promise<PolicyTargetRead>>();
  const steps: PlanStepPolicies[] = [];
  for (const step of changingSteps(plan.steps)) {
    const call = plannedCall(step);
    const action = step.request?.action;
    if (call === undefined || action === undefined) continue;
    const fields = ruleWith(call.with);
    const { project_id: projectId, service_id: serviceId } = fields;
    let target: PlanPolicyTarget;
    if (typeof projectId !== 'string' || typeof serviceId !== 'string') target = { source: 'none' };
    else if (hasTemplate(projectId) || hasTemplate(serviceId)) target = { source: 'run-time' };
    else {
      const key = JSON.stringify([projectId, serviceId]);
      let read = reads.get(key);
      if (read === undefined) {
        read = options.readTarget(projectId, serviceId);
        reads.set(key, read);
      }
      const answer = await read;
      target = answer.ok
        ? { source: 'read', service: answer.service }
        : { source: 'unreadable', id: serviceId, reason: answer.reason };
    }
    const context: PolicyContext = {
      ...common,
      step: { key: step.key, action, with: fields },
      target: target.source === 'read' ? target.service : null,
    };
    const runTimeWith = Object.entries(fields)
      .filter(([, value]) => holdsTemplate(value))
      .map(([name]) => name);
    steps.push({ key: step.key, action, target, runTimeWith, ...check(governance, context, now) });
  }
  let sent = 0;
  for (const read of reads.values()) {
    const answer = await read;
    if (answer.ok || answer.sent) sent += 1;
  }
  return {
    configFile: options.configFile ?? null,
    evaluatedAt: iso(now),
    rules: governance.rules.length,
    starter,
    reads: sent,
    start,
    steps,
  };
}
