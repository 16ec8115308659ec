// `tideline drift` output: text (one line per finding — service, rule, expected, found), the
// report as JSON, and JUnit XML (one testcase per rule and service it looked at, a failure per
// finding of severity error or warning). Names and values come from the API: escaped.
import type { DriftFinding, DriftReport } from '../../state/drift-check';
import { printable } from '../../cloud/printable';
import type { Style } from './style';
import { xmlEscape } from './test-junit';

function foundText(finding: DriftFinding): string {
  const parts = Object.entries(finding.found).map(([path, value]) => `${path}=${JSON.stringify(value)}`);
  if (finding.error !== undefined) parts.push(`cannot evaluate: ${finding.error}`);
  return parts.length > 0 ? parts.join(', ') : '(reads no field)';
}

export function driftText(report: DriftReport, style: Style): string {
  const rules = Object.keys(report.checked).length;
  const services = Object.values(report.checked).reduce((sum, checked) => sum + checked.length, 0);
  const lines: string[] = [];
  for (const finding of report.findings) {
    const mark =
      finding.severity === 'info'
        ? style.dim('·')
        : finding.severity === 'warning'
          ? style.yellow('!')
          : style.red('✗');
    lines.push(
      `${mark} ${printable(finding.service.name)} (${printable(finding.service.id)}) breaks ${finding.rule} [${finding.severity}]`,
      style.dim(`    expected: ${printable(finding.expected.replace(/\s+/g, ' '))}`),
      style.dim(`    found:    ${printable(foundText(finding))}`),
      ...(finding.repair !== undefined ? [style.dim(`    repair:   ${printable(finding.repair)}`)] : []),
    );
  }
  const summary =
    report.findings.length === 0
      ? `${style.green('✓')} no drift: ${rules} rule${rules === 1 ? '' : 's'} over ${services} service check${services === 1 ? '' : 's'} in project ${printable(report.projectId)}`
      : `${report.findings.length} finding${report.findings.length === 1 ? '' : 's'} in project ${printable(report.projectId)} (${rules} rule${rules === 1 ? '' : 's'}, ${services} service check${services === 1 ? '' : 's'})`;
  lines.push(summary);
  return `${lines.join('\n')}\n`;
}

export function driftJunit(report: DriftReport): string {
  const failing = report.findings.filter((f) => f.severity !== 'info');
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="tideline drift" tests="${Object.values(report.checked).reduce((sum, s) => sum + s.length, 0)}" failures="${failing.length}">`,
  ];
  for (const [rule, services] of Object.entries(report.checked)) {
    const failures = report.findings.filter((f) => f.rule === rule && f.severity !== 'info');
    lines.push(
      `  <testsuite name="${xmlEscape(`${report.state}/${rule}`)}" tests="${services.length}" failures="${failures.length}">`,
    );
    for (const service of services) {
      const head = `    <testcase classname="${xmlEscape(rule)}" name="${xmlEscape(`${service.name} (${service.id})`)}"`;
      const finding = failures.find((f) => f.service.id === service.id);
      if (finding === undefined) {
        lines.push(`${head}/>`);
        continue;
      }
      lines.push(
        `${head}>`,
        `      <failure message="${xmlEscape(`breaks ${rule}`)}" type="STATE_DRIFT">${xmlEscape(`expected: ${finding.expected}\nfound: ${foundText(finding)}`)}</failure>`,
        '    </testcase>',
      );
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
