// How `tideline test` shows its results: a line per case, and for a failed case each unmet
// expectation (expected vs actual) and the run's step trail; or one JSON object (`--json`).
import type { Style } from '../output/style';
import { formatDuration } from '../output/style';
import type { CaseResult } from './case-runner';
import type { TestFileProblem } from './test-file-loader';

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function problemText(problem: TestFileProblem): string[] {
  const lines = [`${problem.file}:${problem.line}:${problem.column}: ${problem.message} [${problem.code}]`];
  if (problem.hint !== undefined) lines.push(`  hint: ${problem.hint}`);
  return lines;
}

/** The step trail of a run: one line per step, with its error. */
export function stepTrail(result: CaseResult): string[] {
  return result.steps.map((step) => {
    const label = step.compensates !== undefined ? `${step.key} (undoes ${step.compensates})` : step.key;
    const error = step.error !== undefined ? ` — ${step.error.type}: ${step.error.message}` : '';
    return `${label}: ${step.status}${error}`;
  });
}

export function caseLines(result: CaseResult, style: Style): string[] {
  const took = style.dim(`(${formatDuration(result.durationMs)})`);
  if (result.passed) return [`${style.green('✓')} ${result.name} ${took}`];
  const lines = [
    `${style.red('✗')} ${result.name} ${took}`,
    `    ${style.dim(`${result.file} → ${result.runbook}`)}`,
  ];
  if (result.error !== undefined) lines.push(`    ${result.error.message} [${result.error.code}]`);
  for (const mismatch of result.mismatches) {
    lines.push(
      `    ${style.bold(mismatch.what)}: expected ${shown(mismatch.expected)}, got ${shown(mismatch.actual)}`,
    );
  }
  const trail = stepTrail(result);
  if (trail.length > 0) {
    lines.push(`    steps${result.workflowId !== undefined ? ` of run ${result.workflowId}` : ''}:`);
    lines.push(...trail.map((line) => `      ${style.dim(line)}`));
  }
  return lines;
}

export function summaryLine(results: readonly CaseResult[], elapsedMs: number, style: Style): string {
  const failed = results.filter((r) => !r.passed).length;
  const passed = results.length - failed;
  const counts = `${passed} passed${failed > 0 ? `, ${style.red(`${failed} failed`)}` : ''}`;
  return `${counts} (${results.length} case${results.length === 1 ? '' : 's'} in ${formatDuration(elapsedMs)})`;
}

export function resultsJson(results: readonly CaseResult[], elapsedMs: number): string {
  const failed = results.filter((r) => !r.passed).length;
  return JSON.stringify({
    ok: failed === 0,
    passed: results.length - failed,
    failed,
    durationMs: elapsedMs,
    cases: results.map((r) => ({
      file: r.file,
      name: r.name,
      runbook: r.runbook,
      passed: r.passed,
      durationMs: r.durationMs,
      workflowId: r.workflowId ?? null,
      error: r.error ?? null,
      mismatches: r.mismatches,
      steps: r.steps.map((s) => ({ key: s.key, status: s.status, error: s.error ?? null })),
    })),
  });
}
