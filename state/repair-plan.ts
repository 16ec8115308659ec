// What `tideline reconcile` would start for a drift report: for each finding whose rule declares a
// repair, the repair runbook with its inputs filled in for that service (`${{ service.… }}` and
// `${{ project_id }}` in `repair.with`, resolved by the runbooks' own template resolver and bound
// to the runbook's input declarations). Findings of one service repaired by one runbook become one
// repair. Pure: no I/O, so the plan can be shown (`--plan`) exactly as it would run.
import type { RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { CEL_TYPE_NAMES, expressionReferences } from '../dsl/expression-references';
import { checkExpression } from '../dsl/expressions';
import { bindInputs } from '../dsl/inputs';
import { findTemplates, resolveTemplates } from '../dsl/templates';
import type { DriftFinding, DriftReport } from './drift-check';
import type { LoadedRule, LoadedState } from './state-file';
import { SERVICE_VARIABLE } from './state-rules';

export interface PlannedRepair {
  /** The repair runbook as the state file names it. */
  runbook: string;
  definition: RunbookDefinition;
  service: { id: string; name: string };
  /** The rules this run repairs for the service, in the state file's order. */
  rules: string[];
  /** The inputs, bound to the runbook's declarations (defaults filled in). */
  inputs: Record<string, JsonValue>;
}

export type RepairProblemCode = 'REPAIR_INPUTS_INVALID' | 'REPAIR_INPUTS_CONFLICT';

/** A repair that cannot be started as declared: the state file needs a fix. */
export interface RepairProblem {
  code: RepairProblemCode;
  runbook: string;
  service: { id: string; name: string };
  rules: string[];
  message: string;
}

export interface RepairPlan {
  repairs: PlannedRepair[];
  /** Findings whose rule declares no repair: reported, never acted on. */
  unrepairable: DriftFinding[];
  problems: RepairProblem[];
}

/** What `repair.with` may read besides `service`: the project the services are in. */
const PROJECT_VARIABLE = 'project_id';

/**
 * The problems of a rule's `repair.with` that need no service to see: templates that do not parse,
 * variables other than `service` and `project_id`, inputs the runbook does not declare. Each with
 * its path below `with`, for the state file's positions.
 */
export function repairWithProblems(
  given: Record<string, unknown>,
  definition: RunbookDefinition,
): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  for (const name of Object.keys(given))
    if (definition.inputs[name] === undefined)
      problems.push({
        path: [name],
        message: `${definition.name} has no input \`${name}\` (it has ${Object.keys(definition.inputs).join(', ') || 'none'})`,
      });
  const found = findTemplates(given);
  problems.push(...found.problems);
  for (const { path, expression } of found.expressions) {
    const syntax = checkExpression(expression);
    if (!syntax.ok) {
      problems.push({ path, message: syntax.message });
      continue;
    }
    for (const reference of expressionReferences(expression))
      if (
        ![SERVICE_VARIABLE, PROJECT_VARIABLE].includes(reference.root) &&
        !CEL_TYPE_NAMES.has(reference.root)
      )
        problems.push({
          path,
          message: `\`${expression}\`: unknown variable \`${reference.root}\`; repair inputs read \`service\` and \`project_id\``,
        });
  }
  return problems;
}

function serviceById(services: readonly JsonValue[], id: string): JsonValue {
  for (const service of services) {
    if (
      service !== null &&
      typeof service === 'object' &&
      !Array.isArray(service) &&
      service.service_id === id
    )
      return service;
  }
  return null;
}

/** `repair.with` filled in for one service; throws ExpressionError for a template that fails. */
function filledInputs(rule: LoadedRule, projectId: string, service: JsonValue): Record<string, unknown> {
  const scope = { [SERVICE_VARIABLE]: service, [PROJECT_VARIABLE]: projectId };
  const resolved = resolveTemplates(rule.repair?.with ?? {}, scope);
  return resolved !== null && typeof resolved === 'object' && !Array.isArray(resolved) ? resolved : {};
}

/** The repair's inputs for one finding's service, bound to the runbook's declarations. */
function boundInputs(
  rule: LoadedRule,
  definition: RunbookDefinition,
  projectId: string,
  services: readonly JsonValue[],
  finding: DriftFinding,
): { ok: true; inputs: Record<string, JsonValue> } | { ok: false; message: string } {
  let given: Record<string, unknown>;
  try {
    given = filledInputs(rule, projectId, serviceById(services, finding.service.id));
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const bound = bindInputs(definition.inputs, given);
  if (bound.ok) return { ok: true, inputs: bound.values };
  return { ok: false, message: bound.problems.map((problem) => problem.message).join('; ') };
}

export function planRepairs(
  state: LoadedState,
  report: DriftReport,
  services: readonly JsonValue[],
): RepairPlan {
  const rules = new Map(state.rules.map((rule) => [rule.name, rule]));
  const plan: RepairPlan = { repairs: [], unrepairable: [], problems: [] };
  const byKey = new Map<string, PlannedRepair | RepairProblem>();
  for (const finding of report.findings) {
    if (finding.severity === 'info') continue;
    const rule = rules.get(finding.rule);
    if (rule?.repair === undefined || rule.repairDefinition === undefined) {
      plan.unrepairable.push(finding);
      continue;
    }
    const key = JSON.stringify([finding.service.id, rule.repair.runbook]);
    const existing = byKey.get(key);
    const base = { runbook: rule.repair.runbook, service: finding.service, rules: [finding.rule] };
    const filled = boundInputs(rule, rule.repairDefinition, report.projectId, services, finding);
    if (existing === undefined) {
      byKey.set(
        key,
        filled.ok
          ? { ...base, definition: rule.repairDefinition, inputs: filled.inputs }
          : { ...base, code: 'REPAIR_INPUTS_INVALID', message: filled.message },
      );
    } else if ('code' in existing) {
      existing.rules.push(finding.rule);
    } else if (!filled.ok) {
      byKey.set(key, {
        ...base,
        rules: [...existing.rules, finding.rule],
        code: 'REPAIR_INPUTS_INVALID',
        message: filled.message,
      });
    } else if (JSON.stringify(existing.inputs) !== JSON.stringify(filled.inputs)) {
      byKey.set(key, {
        ...base,
        rules: [...existing.rules, finding.rule],
        code: 'REPAIR_INPUTS_CONFLICT',
        message: `rules ${existing.rules.join(', ')} and ${finding.rule} repair with ${rule.repair.runbook} but give it different inputs`,
      });
    } else existing.rules.push(finding.rule);
  }
  const order = (name: string) => state.rules.findIndex((rule) => rule.name === name);
  for (const entry of byKey.values()) {
    entry.rules.sort((a, b) => order(a) - order(b));
    if ('code' in entry) plan.problems.push(entry);
    else plan.repairs.push(entry);
  }
  return plan;
}
