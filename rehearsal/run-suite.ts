// The whole of `tideline test` but its output: find and load the test files (every problem of
// every file, before anything starts), keep the cases the filter names, start one stack and run
// the cases on it — runbook cases and state cases — at most `jobs` at a time (each has its own
// local cloud and project).
import path from 'node:path';
import type { AnswerObserver } from '../local-cloud/api';
import type { Dialect } from '../local-cloud/dialect';
import type { CaseResult } from './case-runner';
import { runCase } from './case-runner';
import type { LoadedStateCase } from './state-case-loader';
import { runStateCase } from './state-case-runner';
import { loadTestFile, type LoadedCase, type TestFileProblem } from './test-file-loader';
import { findTestFiles } from './test-files';
import { startTestStack } from './test-stack';

export type SuiteLoad =
  | { ok: true; files: string[]; cases: LoadedCase[]; stateCases: LoadedStateCase[] }
  | { ok: false; problems: TestFileProblem[] };

export function loadSuite(paths: readonly string[], cwd: string, filter: string | undefined): SuiteLoad {
  const display = (absolute: string) => path.relative(cwd, absolute) || absolute;
  const { files, missing } = findTestFiles(paths, cwd);
  const problems: TestFileProblem[] = missing.map((given) => ({
    code: 'TEST_FILE_UNREADABLE',
    file: given,
    line: 1,
    column: 1,
    message: 'no such file or folder',
  }));
  const cases: LoadedCase[] = [];
  const stateCases: LoadedStateCase[] = [];
  for (const file of files) {
    const loaded = loadTestFile(file, display);
    if (loaded.ok) {
      cases.push(...loaded.cases);
      stateCases.push(...loaded.stateCases);
    } else problems.push(...loaded.problems);
  }
  if (problems.length > 0) return { ok: false, problems };
  const needle = filter?.toLowerCase();
  const keep = (c: { name: string; file: string }) =>
    needle === undefined || c.name.toLowerCase().includes(needle) || c.file.toLowerCase().includes(needle);
  return {
    ok: true,
    files: files.map(display),
    cases: cases.filter(keep),
    stateCases: stateCases.filter(keep),
  };
}

export interface SuiteOptions {
  env: NodeJS.ProcessEnv;
  jobs: number;
  timeoutMs: number;
  log: (line: string) => void;
  /** Called as each case ends, in the order they end. */
  onResult: (result: CaseResult) => void;
  /** Hears every answer of every case's local cloud. */
  observeAnswers?: AnswerObserver;
  /** The dialect the cases' local clouds answer in (default: current). */
  dialect?: Dialect;
}

/**
 * Runs the cases, then the state cases; results in that order, each kind as given. The state
 * cases are optional for callers that run runbook cases only.
 */
export async function runSuite(
  cases: readonly LoadedCase[],
  options: SuiteOptions,
  stateCases: readonly LoadedStateCase[] = [],
): Promise<CaseResult[]> {
  const stack = await startTestStack(options.env, options.log, options.dialect);
  try {
    const { timeoutMs, observeAnswers } = options;
    const work = [
      ...cases.map((testCase) => () => runCase(stack, testCase, timeoutMs, observeAnswers)),
      ...stateCases.map((testCase) => () => runStateCase(stack, testCase, timeoutMs, observeAnswers)),
    ];
    const results: CaseResult[] = new Array<CaseResult>(work.length);
    let next = 0;
    const lane = async () => {
      for (let index = next++; index < work.length; index = next++) {
        const run = work[index];
        if (run === undefined) continue;
        const result = await run();
        results[index] = result;
        options.onResult(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.jobs, work.length) }, lane));
    return results;
  } finally {
    await stack.close().catch(() => undefined);
  }
}
