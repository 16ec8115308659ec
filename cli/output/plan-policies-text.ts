// The worker's policies in `tideline plan` text: who the rules see as the starter and what applies
// at the start (before the steps), and under each changing step the rules that apply to it, the
// target they were evaluated with and what they would do to the step. Rule names and messages come
// from the configuration and target names from the API: printed through printable().
import type {
  PlanPolicies,
  PlanPolicyCheck,
  PlanPolicyDecision,
  PlanPolicyTarget,
  PlanStepPolicies,
} from '../plan/plan-policies';
import { assertNever } from '../../cloud/assert-never';
import { printable, quoted } from '../../cloud/printable';
import type { Style } from './style';

const approvalsText = (count: number, group: string): string =>
  `${count} signed approval${count === 1 ? '' : 's'} from group:${printable(group)}`;

/** What a window's calendar says now and what the rule does while it is closed. */
function windowDetail(decision: Extract<PlanPolicyDecision, { effect: 'window' }>): string {
  const calendar = `${decision.calendarKind} ${printable(decision.calendar)}`;
  if (decision.open)
    return decision.closesAt === null ? `${calendar}: open` : `${calendar}: open until ${decision.closesAt}`;
  const opens =
    decision.opensAt === null
      ? 'does not open within two years'
      : `opens ${decision.opensAt} (${decision.opensAtLocal ?? ''} ${printable(decision.timezone)})`;
  const meanwhile =
    decision.outside === 'wait' && decision.opensAt !== null
      ? 'the change waits until then'
      : 'the change is refused (CHANGE_WINDOW_CLOSED)';
  const override =
    decision.override === undefined
      ? ''
      : `, unless ${approvalsText(decision.override.count, decision.override.group)} let it through`;
  return `${calendar}: closed, ${opens}; ${meanwhile}${override}`;
}

function decisionLines(decision: PlanPolicyDecision, pad: string, style: Style): string[] {
  const head = `${decision.effect} ${printable(decision.rule)}: ${printable(decision.message)}`;
  switch (decision.effect) {
    case 'deny':
      return [`${pad}${style.red(head)}`];
    case 'warn':
      return [`${pad}${style.yellow(head)} (only recorded)`];
    case 'require-approval':
      return [
        `${pad}${style.yellow(head)}`,
        style.dim(`${pad}  ${approvalsText(decision.count, decision.group)} before the change`),
      ];
    case 'window':
      return [
        `${pad}${decision.open ? head : style.yellow(head)}`,
        style.dim(`${pad}  ${windowDetail(decision)}`),
      ];
    default:
      return assertNever(decision, 'policy effect');
  }
}

/** What the applying rules do to the start or to a step, as one line (none when it proceeds). */
function outcomeText(check: PlanPolicyCheck, start: boolean, style: Style): string | undefined {
  switch (check.outcome) {
    case 'denied':
      return style.red(`→ ${start ? 'the run would not start' : 'the run would fail here'} (POLICY_DENIED)`);
    case 'refused':
      return style.red(
        `→ ${start ? 'the run would not start' : 'the step would be refused'} (CHANGE_WINDOW_CLOSED)`,
      );
    case 'waits':
      return style.yellow(
        `→ ${start ? 'the run' : 'the step'} would wait until ${check.waitUntil ?? '?'} (every applying window open)`,
      );
    case 'needs-approval':
      return style.yellow('→ the step would wait for the signed approvals first');
    case 'proceeds':
      return undefined;
    default:
      return assertNever(check.outcome, 'policy outcome');
  }
}

function checkLines(check: PlanPolicyCheck, start: boolean, pad: string, style: Style): string[] {
  const outcome = outcomeText(check, start, style);
  return [
    ...check.decisions.flatMap((decision) => decisionLines(decision, pad, style)),
    ...(outcome === undefined ? [] : [`${pad}${outcome}`]),
  ];
}

const FAIL_CLOSED = 'the rules see a null target, so a rule reading it applies (fail closed)';

/** The target the rules were evaluated with, as a few words. */
function targetText(target: PlanPolicyTarget): string {
  switch (target.source) {
    case 'read': {
      const service = target.service;
      const facts = [service.environment, service.status]
        .filter((fact): fact is string => fact !== null)
        .map(printable);
      if (service.cpu_millis !== null) facts.push(`${service.cpu_millis} mCPU`);
      const name = service.name === null ? '' : ` ${quoted(service.name)}`;
      return `target ${printable(service.id)}${name}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}, read now`;
    }
    case 'none':
      return 'the step names no service: its target is null, in the run too';
    case 'run-time':
      return `its service is known only at run time: ${FAIL_CLOSED}`;
    case 'unreadable':
      return `target ${printable(target.id)} could not be read (${printable(target.reason)}): ${FAIL_CLOSED}`;
    default:
      return assertNever(target, 'policy target');
  }
}

/** The lines under a changing step: its target, then the rules that apply and what they do. */
export function stepPolicyLines(entry: PlanStepPolicies, pad: string, style: Style): string[] {
  const about = [targetText(entry.target)];
  // A target known only at run time already says so of its ids.
  const later = entry.runTimeWith.filter(
    (name) => entry.target.source !== 'run-time' || (name !== 'project_id' && name !== 'service_id'),
  );
  if (later.length > 0)
    about.push(
      `${later.map(printable).join(', ')} known only at run time: the rules see ${later.length === 1 ? 'it' : 'them'} as written`,
    );
  if (entry.decisions.length === 0)
    return [style.dim(`${pad}policies: no rule applies (${about.join('; ')})`)];
  return [`${pad}policies (${about.join('; ')}):`, ...checkLines(entry, false, `${pad}  `, style)];
}

/** The section before the steps: where the rules come from, the starter, and the start's rules. */
export function policyHeaderLines(policies: PlanPolicies, style: Style): string[] {
  const from = policies.configFile === null ? '' : ` from ${printable(policies.configFile)}`;
  const lines = [
    '',
    `policies (the worker's ${policies.rules} rule${policies.rules === 1 ? '' : 's'}${from}, evaluated at ${policies.evaluatedAt}):`,
    `  starter: ${policies.starter.name === '' ? '(no name)' : printable(policies.starter.name)}, as claimed — ` +
      'the plan verifies no key, so the rules see an unverified starter in no group',
  ];
  if (policies.start.decisions.length === 0) return [...lines, style.dim('  at the start: no rule applies')];
  return [...lines, '  at the start:', ...checkLines(policies.start, true, '    ', style)];
}

/** What the plan called: the header's `nothing is called`, or which read-only requests it sent. */
export function callsText(listed: boolean, policies: PlanPolicies | undefined): string {
  const calls = [...(listed ? ['service.list'] : []), ...((policies?.reads ?? 0) > 0 ? ['service.get'] : [])];
  if (calls.length === 0) return 'nothing is called';
  return calls.length === 1 ? `only ${calls[0] ?? ''} was called` : `only ${calls.join(' and ')} were called`;
}
