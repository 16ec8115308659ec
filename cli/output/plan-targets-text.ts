// A targets foreach in `tideline plan` text: the selector on the step's line, and, after
// `--resolve-targets`, the services it selects now as a table (or why they are not known yet).
import type { PlanTargets } from '../plan/plan-targets';
import { inlineValue } from './style';

/** `the services of project p1 where environment DEV, status READY or PAUSED, name dev-*`. */
export function selectorText(targets: PlanTargets): string {
  const { project_id: project, ...rest } = targets.selector;
  const conditions = Object.entries(rest).map(([field, value]) =>
    Array.isArray(value)
      ? `${field} ${value.map((one) => inlineValue(one)).join(' or ')}`
      : `${field} ${inlineValue(value ?? null)}`,
  );
  const where = conditions.length > 0 ? ` where ${conditions.join(', ')}` : '';
  return `the services of project ${inlineValue(project)}${where}`;
}

const COLUMNS = ['service_id', 'name', 'environment', 'status', 'region'] as const;

/** The listed services (after --resolve-targets), one line each, in columns. */
export function targetLines(targets: PlanTargets, pad: string): string[] {
  if (targets.unresolved !== undefined) return [`${pad}targets: not listed (${targets.unresolved})`];
  if (targets.services === undefined) return [];
  const services = targets.services;
  if (services.length === 0) return [`${pad}targets now: none (no service matches)`];
  const widths = COLUMNS.map((column) =>
    Math.max(column.length, ...services.map((service) => service[column].length)),
  );
  const row = (cells: string[]) =>
    `${pad}  ${cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join('  ')}`.trimEnd();
  return [
    `${pad}targets now (${services.length}):`,
    row([...COLUMNS]),
    ...services.map((service) => row(COLUMNS.map((column) => service[column] || '-'))),
  ];
}
