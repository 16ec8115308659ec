// `tideline reconcile` output: the plan (each repair: runbook, service, rules, inputs — secret
// inputs masked), one line per repair run as it ends — refusals with their code and reason, a
// waiting approval with the command a person runs — and the JSON of the whole reconcile.
import type { JsonValue } from '../../dsl/expressions';
import type { DriftFinding } from '../../state/drift-check';
import type { PlannedRepair, RepairPlan, RepairProblem } from '../../state/repair-plan';
import type { CliContext } from '../context';
import type { RepairOutcome, RepairRun } from '../../stack/repair-runs';
import { assertNever } from '../../cloud/assert-never';
import { printable } from '../../cloud/printable';
import { cliCommand } from './run-report';
import { inlineValue, isoTime, type Style } from './style';

const MASK = '••••••';

/** The inputs as shown: secret ones (by the runbook's declaration) masked. */
export function shownInputs(repair: PlannedRepair): Record<string, JsonValue> {
  const shown: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(repair.inputs))
    shown[name] = repair.definition.inputs[name]?.secret === true ? MASK : value;
  return shown;
}

function who(service: { id: string; name: string }): string {
  return `${printable(service.name)} (${printable(service.id)})`;
}

export function planLines(plan: RepairPlan, style: Style): string[] {
  const lines: string[] = [];
  for (const repair of plan.repairs) {
    const inputs = Object.entries(shownInputs(repair))
      .map(([name, value]) => `${name}=${inlineValue(value)}`)
      .join(' ');
    lines.push(
      `→ ${printable(repair.runbook)} for ${who(repair.service)} (repairs ${repair.rules.join(', ')})`,
      style.dim(`    inputs: ${printable(inputs)}`),
    );
  }
  for (const finding of plan.unrepairable) lines.push(unrepairableLine(finding, style));
  for (const problem of plan.problems) lines.push(problemLine(problem, style));
  return lines;
}

export function unrepairableLine(finding: DriftFinding, style: Style): string {
  return `${style.yellow('·')} ${who(finding.service)} breaks ${finding.rule}: no repair declared`;
}

export function problemLine(problem: RepairProblem, style: Style): string {
  return `${style.red('✗')} ${printable(problem.runbook)} for ${who(problem.service)} (${problem.rules.join(', ')}): ${printable(problem.message)} [${problem.code}]`;
}

/** One line (or a few) for a repair run as reconcile leaves it. */
export function runLines(ctx: Pick<CliContext, 'globals'>, run: RepairRun, style: Style): string[] {
  const joined = run.joined === true ? ', started before this reconcile: joined' : '';
  const head = `${printable(run.repair.runbook)} for ${who(run.repair.service)} (run ${run.workflowId}${joined})`;
  const rules = `rule${run.repair.rules.length === 1 ? '' : 's'} ${run.repair.rules.join(', ')}`;
  const outcome = run.outcome;
  const at = (stepKey: string | undefined) => (stepKey !== undefined ? ` at step ${stepKey}` : '');
  switch (outcome.kind) {
    case 'repaired':
      return [`${style.green('✓')} ${head}: succeeded`];
    case 'refused':
      return [
        `${style.red('✗')} ${head}: refused by the worker${at(outcome.stepKey)} [${outcome.code}]: ${printable(outcome.reason)} (${rules})`,
      ];
    case 'failed':
      return [
        `${style.red('✗')} ${head}: ${outcome.status}${at(outcome.stepKey)} [${outcome.code}]: ${printable(outcome.reason)} (${rules})`,
        style.dim(`    see: ${cliCommand(ctx, ['status', run.workflowId])}`),
      ];
    case 'awaiting-approval':
      return [
        `${style.yellow('⏸')} ${head}: waiting for approval at step ${outcome.approval.stepKey}: ${printable(outcome.approval.message)} (${rules})`,
        `    approve: ${cliCommand(ctx, ['approve', run.workflowId, '--step', outcome.approval.stepKey])}`,
        `    reject:  ${cliCommand(ctx, ['reject', run.workflowId, '--step', outcome.approval.stepKey])}`,
      ];
    case 'awaiting-window':
      return [
        `${style.yellow('⏸')} ${head}: waiting for a closed change window${at(outcome.stepKey)} (policy ${printable(outcome.rule)}) until ${isoTime(outcome.until) ?? '?'} (${rules})`,
        style.dim(`    follow it: ${cliCommand(ctx, ['status', run.workflowId])}`),
      ];
    case 'held':
      return [
        `${style.yellow('⏸')} ${head}: held at failed step ${outcome.stepKey}: ${printable(outcome.reason)} (${rules})`,
        style.dim(
          `    retry, skip or roll it back: ${cliCommand(ctx, ['status', run.workflowId])} shows how`,
        ),
      ];
    case 'not-started':
      return [`${style.red('✗')} ${head}: not started [${outcome.code}]: ${printable(outcome.reason)}`];
    case 'detached':
      return [`${head}: still running (detached); ${cliCommand(ctx, ['status', run.workflowId])}`];
    default:
      return assertNever(outcome);
  }
}

/** A repair run as JSON: what ran, for which service, and how reconcile left it. */
export function runJson(run: RepairRun): Record<string, unknown> {
  return {
    runbook: run.repair.runbook,
    service: run.repair.service,
    rules: run.repair.rules,
    inputs: shownInputs(run.repair),
    workflowId: run.workflowId,
    joined: run.joined === true,
    outcome: outcomeJson(run.outcome),
  };
}

function outcomeJson(outcome: RepairOutcome): Record<string, unknown> {
  if (outcome.kind !== 'awaiting-window') return { ...outcome };
  return { ...outcome, until: isoTime(outcome.until) ?? null };
}

export function planJson(plan: RepairPlan): Record<string, unknown> {
  return {
    repairs: plan.repairs.map((repair) => ({
      runbook: repair.runbook,
      service: repair.service,
      rules: repair.rules,
      inputs: shownInputs(repair),
    })),
    unrepairable: plan.unrepairable.map((finding) => ({ service: finding.service, rule: finding.rule })),
    problems: plan.problems,
  };
}
