// How `tideline test` shows its results: a line per case, and for a failed case each unmet
// expectation (where the file states it, expected vs actual) and the run's step trail; after the summary, each runbook's
// coverage; or one JSON object (`--json`).
import type { Style } from './style';
import { formatDuration } from './style';
import type { CaseResult } from '../../rehearsal/case-runner';
import type { Mismatch } from '../../rehearsal/expectations';
import type { CoverageBranch, CoverageCount, FailurePath, RunbookCoverage } from '../../rehearsal/coverage';
import type { TestFileProblem } from '../../rehearsal/test-file-loader';

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * One unmet expectation: where the test file states it, which, and expected vs found — or, for a
 * secret's comparison, only its message.
 */
export function mismatchText(
  mismatch: Mismatch,
  file: string,
  show: (value: unknown) => string,
  emphasis: (text: string) => string = (text) => text,
): string {
  const where = mismatch.at !== undefined ? `${file}:${mismatch.at.line}:${mismatch.at.column}: ` : '';
  const detail = mismatch.message ?? `expected ${show(mismatch.expected)}, got ${show(mismatch.actual)}`;
  return `${where}${emphasis(mismatch.what)}: ${detail}`;
}

/** A problem of a test file (or a file beside it) at its file:line:column, with its code. */
export function problemText(problem: Omit<TestFileProblem, 'code'> & { code: string }): string[] {
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
  for (const mismatch of result.mismatches)
    lines.push(`    ${mismatchText(mismatch, result.file, shown, style.bold)}`);
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

const BRANCH_TEXT: Record<CoverageBranch['outcome'], string> = {
  taken: 'if taken',
  'not-taken': 'if not taken',
  approved: 'approved',
  rejected: 'rejected',
  compensated: 'compensated',
};

const branchText = (branch: CoverageBranch) => `${branch.step} (${BRANCH_TEXT[branch.outcome]})`;
// Step ids have no spaces, so `run rollback` cannot be a step's key.
const failureText = (path: FailurePath) => ('step' in path ? path.step : `run ${path.run}`);

/** How wide the lists of uncovered items may grow before they wrap. */
const LIST_WIDTH = 100;

/** `label: a, b, c`, wrapped at LIST_WIDTH, continuation lines under the first item. */
function listLines(label: string, items: readonly string[]): string[] {
  const lines: string[] = [];
  const indent = ' '.repeat(label.length + 2);
  let line = `${label}:`;
  items.forEach((item, index) => {
    const text = `${item}${index < items.length - 1 ? ',' : ''}`;
    const first = line === `${label}:`;
    if (!first && line.length + 1 + text.length > LIST_WIDTH) {
      lines.push(line);
      line = `${indent}${text}`;
    } else line = `${line} ${text}`;
  });
  lines.push(line);
  return lines;
}

const ratio = (count: CoverageCount<unknown>) => `${count.covered}/${count.total}`;

/**
 * Each runbook's coverage: one line of counts per runbook, then (indented, dimmed) what no case
 * exercised. Nothing when no runbook was run.
 */
export function coverageLines(coverage: readonly RunbookCoverage[], style: Style): string[] {
  if (coverage.length === 0) return [];
  const cases = coverage.reduce((sum, c) => sum + c.cases, 0);
  const width = Math.max(...coverage.map((c) => c.runbook.length));
  const lines = [`coverage by the ${cases} case${cases === 1 ? '' : 's'} run:`];
  for (const c of coverage) {
    lines.push(
      `  ${c.runbook.padEnd(width)}  steps ${ratio(c.steps)}  branches ${ratio(c.branches)}  failure paths ${ratio(c.failurePaths)}`,
    );
    const uncovered = [
      ...(c.steps.uncovered.length > 0 ? listLines('steps not reached', c.steps.uncovered) : []),
      ...(c.branches.uncovered.length > 0
        ? listLines('branches not taken', c.branches.uncovered.map(branchText))
        : []),
      ...(c.failurePaths.uncovered.length > 0
        ? listLines('failure paths not seen', c.failurePaths.uncovered.map(failureText))
        : []),
    ];
    lines.push(...uncovered.map((line) => `    ${style.dim(line)}`));
  }
  return lines;
}

/** The results as one JSON object; `coverage` is left out when not counted (`--no-coverage`). */
export function resultsJson(
  results: readonly CaseResult[],
  elapsedMs: number,
  coverage?: readonly RunbookCoverage[],
): string {
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
    ...(coverage !== undefined ? { coverage } : {}),
  });
}
