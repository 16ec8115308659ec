// `tideline test --junit FILE`: the results as JUnit XML, which CI systems show as test reports.
// One <testsuite> per test file, one <testcase> per case; a failed case has a <failure> with every
// unmet expectation and the step trail, a case that could not run an <error>.
import type { CaseResult } from '../../rehearsal/case-runner';
import { mismatchText, stepTrail } from './test-report';

/** Text as XML character data or attribute value; characters XML 1.0 cannot hold are dropped. */
export function xmlEscape(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- these are exactly what XML 1.0 forbids
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function caseXml(result: CaseResult): string[] {
  const head = `    <testcase classname="${xmlEscape(result.file)}" name="${xmlEscape(result.name)}" time="${seconds(result.durationMs)}"`;
  if (result.passed) return [`${head}/>`];
  const body = [
    ...(result.error !== undefined ? [`${result.error.code}: ${result.error.message}`] : []),
    ...result.mismatches.map((m) => mismatchText(m, result.file, (value) => JSON.stringify(value))),
    ...(result.steps.length > 0 ? ['steps:', ...stepTrail(result).map((line) => `  ${line}`)] : []),
  ].join('\n');
  const first = result.error?.message ?? result.mismatches.map((m) => m.what).join(', ');
  const element = result.error !== undefined ? 'error' : 'failure';
  return [
    `${head}>`,
    `      <${element} message="${xmlEscape(first)}" type="${result.error?.code ?? 'TEST_EXPECTATION_UNMET'}">${xmlEscape(body)}</${element}>`,
    '    </testcase>',
  ];
}

export function junitXml(results: readonly CaseResult[]): string {
  const files = [...new Set(results.map((r) => r.file))];
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = results.filter((r) => !r.passed && r.error === undefined).length;
  const errors = results.filter((r) => r.error !== undefined).length;
  const total = results.reduce((sum, r) => sum + r.durationMs, 0);
  lines.push(
    `<testsuites name="tideline test" tests="${results.length}" failures="${failures}" errors="${errors}" time="${seconds(total)}">`,
  );
  for (const file of files) {
    const inFile = results.filter((r) => r.file === file);
    lines.push(
      `  <testsuite name="${xmlEscape(file)}" tests="${inFile.length}" failures="${inFile.filter((r) => !r.passed && r.error === undefined).length}" errors="${inFile.filter((r) => r.error !== undefined).length}" time="${seconds(inFile.reduce((sum, r) => sum + r.durationMs, 0))}">`,
    );
    for (const result of inFile) lines.push(...caseXml(result));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
