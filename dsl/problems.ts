// Problems found in a runbook, and the error that carries them. Pure (no Node built-ins).
// Messages name fields, ids and actions but never quote input values, so secrets stay out.

export type ProblemPath = (string | number)[];

/** Which rule found the problem; stable, so tests and tools can match on it. */
export type ProblemRule =
  | 'yaml'
  | 'file'
  | 'encoding'
  | 'limit'
  | 'schema'
  | 'duration'
  | 'unknown-action'
  | 'wait-not-read'
  | 'adopt-not-create'
  | 'action-input'
  | 'duplicate-id'
  | 'reference'
  | 'output-field'
  | 'unknown-variable'
  | 'unknown-input'
  | 'expression'
  | 'condition-type'
  | 'expression-type'
  | 'expression-limit'
  | 'dialect-value'
  | 'wait-condition'
  | 'secret-leak'
  | 'input-spec'
  | 'child-runbook'
  | 'child-inputs'
  | 'compensate-nested'
  | 'approve-default'
  /** An approve step's `approvers`, `minApprovals` or `allowSelfApproval` that cannot work. */
  | 'approve-approvers'
  | 'on-failure'
  /** A foreach's `onMaxErrors` without `maxErrors`. */
  | 'foreach-budget'
  /** A foreach's `targets` selector that cannot select what it says (pattern, status, roles…). */
  | 'foreach-targets'
  /** A runbook test file (`*.test.yaml`) with a problem. */
  | 'test-file'
  /** A state file (`*.state.yaml`) with a problem. */
  | 'state-file'
  /** A runbook's list of mutants (`*.mutants.yaml`) with a problem. */
  | 'mutants-file';

export interface SourcePosition {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export interface RunbookProblem {
  rule: ProblemRule;
  message: string;
  hint?: string;
  /** Where in the document, e.g. ['steps', 0, 'with', 'name']. */
  path: ProblemPath;
  /** Point at the key rather than its value (unknown fields). */
  anchor?: 'key' | 'value';
  file?: string;
  line?: number;
  column?: number;
}

/** `RUNBOOK_UNREADABLE`: the path is a directory or device, too large, or cannot be read. */
export type RunbookErrorCode = 'RUNBOOK_INVALID' | 'RUNBOOK_NOT_FOUND' | 'RUNBOOK_UNREADABLE';

/** `steps[0].with.name`, for messages when no position is known. */
export function formatPath(path: ProblemPath): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return out === '' ? '(document)' : out;
}

/** `file:line:column: message`, with the hint on an indented second line. */
export function formatProblem(problem: RunbookProblem): string {
  const where =
    problem.line !== undefined
      ? `${problem.file ?? '<runbook>'}:${problem.line}:${problem.column ?? 1}`
      : `${problem.file ?? '<runbook>'}: ${formatPath(problem.path)}`;
  const hint = problem.hint ? `\n  hint: ${problem.hint}` : '';
  return `${where}: ${problem.message}${hint}`;
}

export class RunbookError extends Error {
  constructor(
    readonly code: RunbookErrorCode,
    readonly problems: RunbookProblem[],
    summary?: string,
  ) {
    super(
      summary ??
        `${problems.length} problem${problems.length === 1 ? '' : 's'} in the runbook:\n${problems.map(formatProblem).join('\n')}`,
    );
    this.name = 'RunbookError';
  }
}

export function isRunbookError(error: unknown): error is RunbookError {
  return (
    error instanceof Error &&
    'code' in error &&
    (error.code === 'RUNBOOK_INVALID' ||
      error.code === 'RUNBOOK_NOT_FOUND' ||
      error.code === 'RUNBOOK_UNREADABLE') &&
    'problems' in error
  );
}

/** Orders problems by file and position, so output reads top to bottom. */
export function sortProblems(problems: RunbookProblem[]): RunbookProblem[] {
  return [...problems].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}
