// The policy engine: compiles the governance section once (CEL checked, calendars prepared) and
// evaluates its rules over a run's or a step's context. Pure: no I/O, no clock (the time is an
// argument), no Temporal; the worker calls it inside activities.
//
// Where a rule is evaluated (`at`): at run start the context's `step` is null and only rules at
// `start`/`both` are evaluated; before a step only rules at `steps`/`both`.
//
// Fail closed: a `when` or `unless` that cannot be evaluated (a field of a null `target`, a value
// of the wrong type) counts as "the rule applies" — for every effect, so the failure is seen — and
// the decision's message says why.
import type { CalendarState, CompiledCalendar } from './calendars';
import { calendarState, compileCalendar, firstOpenTogether, type CalendarFileReader } from './calendars';
import type { PolicyCondition, PolicyVariable } from './policy-cel';
import { compileCondition, evaluateCondition, policyVariables } from './policy-cel';
import type { PolicyAt, PolicyContext, PolicyEffect, PolicyRule, WindowRule } from './policy-schema';
import { GovernanceSection, governanceIssueText } from './policy-schema';
import { windowMessage } from './policy-messages';

export type CompiledRule = {
  readonly at: PolicyAt;
  readonly when: PolicyCondition;
  readonly unless: PolicyCondition | undefined;
} & (
  | { readonly spec: Exclude<PolicyRule, WindowRule>; readonly calendar: null }
  | { readonly spec: WindowRule; readonly calendar: CompiledCalendar }
);

export interface CompiledGovernance {
  readonly rules: readonly CompiledRule[];
  readonly calendars: ReadonlyMap<string, CompiledCalendar>;
}

export type GovernanceCompilation =
  { ok: true; governance: CompiledGovernance } | { ok: false; problems: string[] };

type ApprovalsNeeded = { group: string; count: number };

export type PolicyDecision =
  | { rule: string; effect: 'deny'; message: string }
  | { rule: string; effect: 'warn'; message: string }
  | ({ rule: string; effect: 'require-approval'; message: string } & ApprovalsNeeded)
  | {
      rule: string;
      effect: 'window';
      calendar: string;
      open: boolean;
      outside: 'wait' | 'refuse';
      /** When the calendar next lets changes happen (now, when open); null: not within two years. */
      opensAt: number | null;
      /** When the current open period ends; null when closed or not within two years. */
      closesAt: number | null;
      override?: ApprovalsNeeded;
      message: string;
    };

export interface PolicyVerdict {
  /** The rules that apply, in the order they are written. */
  decisions: PolicyDecision[];
  /** A deny rule applies. */
  denied: boolean;
  /**
   * Some window to wait for is closed and none to refuse on is: the first time at which every
   * applying calendar is open together (overrides aside). Null when nothing is to be waited for.
   */
  waitUntil: number | null;
  /** A `refuse` window is closed, or a `wait` window does not open within two years. */
  refusedByWindow: boolean;
}

/** A rule as `tideline policy list` shows it. */
export interface RuleSummary {
  name: string;
  effect: PolicyEffect;
  description: string | null;
  when: string;
  unless: string | null;
  at: PolicyAt;
  calendar: string | null;
}

/** Reading `step` or `target` makes a rule a step rule unless `at` says otherwise. */
function defaultAt(spec: PolicyRule, reads: ReadonlySet<PolicyVariable>): PolicyAt {
  if (reads.has('step') || reads.has('target')) return 'steps';
  return spec.effect === 'window' ? 'both' : 'start';
}

function compileRule(
  spec: PolicyRule,
  index: number,
  calendars: ReadonlyMap<string, CompiledCalendar>,
  problems: string[],
): CompiledRule | undefined {
  const where = `policies[${index}]`;
  const when = compileCondition(spec.when);
  if (!when.ok) problems.push(`${where}.when: ${when.problem}`);
  const unless = spec.unless === undefined ? undefined : compileCondition(spec.unless);
  if (unless !== undefined && !unless.ok) problems.push(`${where}.unless: ${unless.problem}`);
  if (!when.ok || (unless !== undefined && !unless.ok)) return undefined;
  const reads = new Set([...when.condition.reads, ...(unless?.condition.reads ?? [])]);
  if (spec.at === 'start' && (reads.has('step') || reads.has('target'))) {
    problems.push(
      `${where}.at: a rule evaluated at run start reads step and target as null; use steps or both`,
    );
    return undefined;
  }
  const common = { at: spec.at ?? defaultAt(spec, reads), when: when.condition, unless: unless?.condition };
  if (spec.effect !== 'window') return { ...common, spec, calendar: null };
  // A calendar that did not compile is reported already; the schema checked that it is defined.
  const calendar = calendars.get(spec.calendar);
  return calendar === undefined ? undefined : { ...common, spec, calendar };
}

/**
 * Checks a governance section (raw configuration or already parsed) and prepares it: every
 * problem is reported, each as `path: what is wrong` relative to the section.
 */
export function compileGovernance(section: unknown, readFile?: CalendarFileReader): GovernanceCompilation {
  const parsed = GovernanceSection.safeParse(section ?? {});
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map(governanceIssueText) };
  const config: GovernanceSection = parsed.data;
  const problems: string[] = [];
  const calendars = new Map<string, CompiledCalendar>();
  for (const [name, spec] of Object.entries(config.calendars ?? {})) {
    const compiled = compileCalendar(name, spec, readFile);
    if (compiled.ok) calendars.set(name, compiled.calendar);
    else problems.push(...compiled.problems);
  }
  const rules: CompiledRule[] = [];
  (config.policies ?? []).forEach((spec, index) => {
    const rule = compileRule(spec, index, calendars, problems);
    if (rule) rules.push(rule);
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, governance: { rules, calendars } };
}

/** Who can give the signed approvals rules ask for: the worker's `approvals` section. */
export interface PolicyApprovers {
  groups: ReadonlyMap<string, readonly string[]>;
  /** Whether a name has an approval key registered (`approvals.keys`). */
  hasKey: (name: string) => boolean;
}

/**
 * The rules that cannot be enforced as written: a `require-approval` rule or a window's `override`
 * whose quorum the worker's approvers cannot give — a group that `approvals.groups` does not
 * define, or fewer of its members with a registered key than the count (a run would wait for
 * approvals no one can sign). One problem per rule, as `policies[i].…: what and how to fix`.
 */
export function unenforceableRules(governance: CompiledGovernance, approvers: PolicyApprovers): string[] {
  const problems: string[] = [];
  governance.rules.forEach(({ spec }, index) => {
    const need =
      spec.effect === 'require-approval'
        ? spec.approvals
        : spec.effect === 'window'
          ? spec.override
          : undefined;
    if (need === undefined) return;
    const where = `policies[${index}].${spec.effect === 'window' ? 'override' : 'approvals'}`;
    const members = approvers.groups.get(need.group);
    if (members === undefined) {
      problems.push(
        `${where}: rule ${spec.name} asks approvals of group:${need.group}, which approvals.groups does not define; define the group (with members who have keys under approvals.keys) or name another`,
      );
      return;
    }
    const signers = members.filter((name) => approvers.hasKey(name));
    if (signers.length < need.count)
      problems.push(
        `${where}: rule ${spec.name} asks ${need.count} approvals of group:${need.group}, which has ${signers.length} member${signers.length === 1 ? '' : 's'} with a key under approvals.keys${signers.length > 0 ? ` (${signers.join(', ')})` : ''}; no run could get past it — add members with keys or lower the count`,
      );
  });
  return problems;
}

/** Whether any rule is evaluated before steps; false lets the workflow skip per-step checks. */
export function hasStepRules(governance: CompiledGovernance): boolean {
  return governance.rules.some((rule) => rule.at !== 'start');
}

/** Whether any rule is evaluated at run start. */
export function hasStartRules(governance: CompiledGovernance): boolean {
  return governance.rules.some((rule) => rule.at !== 'steps');
}

export function describeRules(governance: CompiledGovernance): RuleSummary[] {
  return governance.rules.map(({ spec, at }) => ({
    name: spec.name,
    effect: spec.effect,
    description: spec.description ?? null,
    when: spec.when,
    unless: spec.unless ?? null,
    at,
    calendar: spec.effect === 'window' ? spec.calendar : null,
  }));
}

/** Whether a rule applies; `failure` says which condition could not be evaluated, and why. */
function applies(
  rule: CompiledRule,
  variables: Record<string, unknown>,
): { applies: boolean; failure?: string } {
  const when = evaluateCondition(rule.when, variables);
  if (!when.ok) return { applies: true, failure: `\`when\` could not be evaluated (${when.error})` };
  if (!when.value || rule.unless === undefined) return { applies: when.value };
  const unless = evaluateCondition(rule.unless, variables);
  if (!unless.ok) return { applies: true, failure: `\`unless\` could not be evaluated (${unless.error})` };
  return { applies: !unless.value };
}

function decide(rule: CompiledRule, nowMs: number, failure: string | undefined): PolicyDecision {
  const withFailure = (message: string) =>
    failure === undefined ? message : `${message}; ${failure}, so the rule applies`;
  const given = rule.spec.message ?? rule.spec.description;
  if (rule.calendar !== null) {
    const { spec, calendar } = rule;
    const state: CalendarState = calendarState(calendar, nowMs);
    return {
      rule: spec.name,
      effect: 'window',
      calendar: spec.calendar,
      open: state.open,
      outside: spec.outside,
      opensAt: state.opensAt,
      closesAt: state.closesAt,
      ...(spec.override ? { override: { ...spec.override } } : {}),
      message: withFailure(windowMessage(spec, calendar, state, given)),
    };
  }
  const spec = rule.spec;
  switch (spec.effect) {
    case 'deny':
      return {
        rule: spec.name,
        effect: 'deny',
        message: withFailure(given ?? `denied by policy ${spec.name}`),
      };
    case 'warn':
      return {
        rule: spec.name,
        effect: 'warn',
        message: withFailure(given ?? `warning of policy ${spec.name}`),
      };
    case 'require-approval': {
      const { group, count } = spec.approvals;
      const needed = `${count} approval${count === 1 ? '' : 's'} from group:${group}`;
      const message = given === undefined ? `policy ${spec.name} needs ${needed}` : `${given} (${needed})`;
      return { rule: spec.name, effect: 'require-approval', group, count, message: withFailure(message) };
    }
  }
}

/**
 * Evaluates the rules for a context at `nowMs` (the CEL `now`): at run start when
 * `context.step` is null, else before that step. Only rules that apply appear.
 */
export function evaluatePolicies(
  governance: CompiledGovernance,
  context: PolicyContext,
  nowMs: number,
): PolicyVerdict {
  const phase = context.step === null ? 'start' : 'steps';
  const variables = policyVariables(context, nowMs);
  const decisions: PolicyDecision[] = [];
  const windows: CompiledCalendar[] = [];
  for (const rule of governance.rules) {
    if (rule.at !== phase && rule.at !== 'both') continue;
    const result = applies(rule, variables);
    if (!result.applies) continue;
    decisions.push(decide(rule, nowMs, result.failure));
    if (rule.calendar !== null) windows.push(rule.calendar);
  }
  const closed = decisions.filter((decision) => decision.effect === 'window' && !decision.open);
  let refusedByWindow = closed.some(
    (decision) =>
      decision.effect === 'window' && (decision.outside === 'refuse' || decision.opensAt === null),
  );
  let waitUntil: number | null = null;
  if (closed.length > 0 && !refusedByWindow) {
    waitUntil = firstOpenTogether(windows, nowMs);
    if (waitUntil === null) refusedByWindow = true;
  }
  return {
    decisions,
    denied: decisions.some((decision) => decision.effect === 'deny'),
    waitUntil,
    refusedByWindow,
  };
}
