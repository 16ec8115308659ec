// The drift check: lists the project's services once, picks each rule's services with the same
// CEL filter a targets foreach runs (dsl/targets-filter.ts), and reports every service that breaks
// a rule — what the rule expects and what the service holds at the fields it reads. Read-only.
import type { JsonValue } from '../dsl/expressions';
import { evaluateExpression } from '../dsl/expressions';
import { targetsItems } from '../dsl/targets-filter';
import type { LoadedState } from './state-file';
import { foundValues, meets } from './state-rules';
import type { Severity, StateSelector } from './state-schema';

const LIST_STEP = 'services';

export interface DriftFinding {
  rule: string;
  severity: Severity;
  service: { id: string; name: string };
  /** The rule's expectation, as written. */
  expected: string;
  /** What the service holds at the fields the expectation reads. */
  found: Record<string, JsonValue>;
  /** Set when the expectation could not be evaluated for this service (it then counts as broken). */
  error?: string;
  /** The runbook that would repair it, as the state file names it. */
  repair?: string;
}

export interface DriftReport {
  state: string;
  projectId: string;
  /** The services each rule looked at, by rule name. */
  checked: Record<string, { id: string; name: string }[]>;
  findings: DriftFinding[];
}

/** Lists a project's services (service.list), through the per-project API budget of its caller. */
export type ServiceLister = (projectId: string) => Promise<JsonValue[]>;

/** The services a selector picks, with the same CEL filter a targets foreach runs. */
export function selectServices(select: StateSelector, projectId: string, services: JsonValue[]): JsonValue[] {
  const items = targetsItems({ ...select, project_id: projectId }, LIST_STEP);
  const value = evaluateExpression(items, { steps: { [LIST_STEP]: { output: services } } });
  return Array.isArray(value) ? value : [];
}

function field(service: JsonValue, name: string): string {
  if (service === null || typeof service !== 'object' || Array.isArray(service)) return '';
  const value = service[name];
  return typeof value === 'string' ? value : '';
}

function identity(service: JsonValue): { id: string; name: string } {
  return { id: field(service, 'service_id'), name: field(service, 'name') };
}

export async function checkDrift(
  state: LoadedState,
  projectId: string,
  list: ServiceLister,
): Promise<DriftReport> {
  const services = await list(projectId);
  const report: DriftReport = { state: state.name, projectId, checked: {}, findings: [] };
  for (const rule of state.rules) {
    const picked = selectServices(rule.select, projectId, services);
    report.checked[rule.name] = picked.map((service) => identity(service));
    for (const service of picked) {
      const outcome = meets(rule.expectation, service);
      if (outcome.ok && outcome.value) continue;
      const finding: DriftFinding = {
        rule: rule.name,
        severity: rule.severity,
        service: identity(service),
        expected: rule.expect,
        found: foundValues(rule.expectation, service),
      };
      if (!outcome.ok) finding.error = outcome.error;
      if (rule.repair !== undefined) finding.repair = rule.repair.runbook;
      report.findings.push(finding);
    }
  }
  report.findings.sort(
    (a, b) => a.service.name.localeCompare(b.service.name) || a.rule.localeCompare(b.rule),
  );
  return report;
}

/** Whether the report is drift `tideline drift` exits 1 for: any error or warning finding. */
export function hasDrift(report: DriftReport): boolean {
  return report.findings.some((finding) => finding.severity !== 'info');
}
