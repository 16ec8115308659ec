// The whole of `tideline test` but its output: find and load the test files (every problem of
// every file, before anything starts), keep the cases the filter names, start one stack and run
// the cases on it, at most `jobs` at a time (each has its own local cloud and project).
import path from 'node:path';
import type { AnswerObserver } from '../local-cloud/api';
import type { Dialect } from '../local-cloud/dialect';
import type { CaseResult } from './case-runner';
import { runCase } from './case-runner';
import { loadTestFile, type LoadedCase, type TestFileProblem } from './test-file-loader';
import { findTestFiles } from './test-files';
import { startTestStack } from './test-stack';

export type SuiteLoad =
  { ok: true; files: string[]; cases: LoadedCase[] } | { ok: false; problems: TestFileProblem[] };

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
  for (const file of files) {
    const loaded = loadTestFile(file, display);
    if (loaded.ok) cases.push(...loaded.cases);
    else problems.push(...loaded.problems);
  }
  if (problems.length > 0) return { ok: false, problems };
  const needle = filter?.toLowerCase();
  const kept =
    needle === undefined
      ? cases
      : cases.filter((c) => c.name.toLowerCase().includes(needle) || c.file.toLowerCase().includes(needle));
  return { ok: true, files: files.map(display), cases: kept };
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

/** Runs the cases; results in the order the cases were given. */
export async function runSuite(cases: readonly LoadedCase[], options: SuiteOptions): Promise<CaseResult[]> {
  const stack = await startTestStack(options.env, options.log, options.dialect);
  try {
    const results: CaseResult[] = new Array<CaseResult>(cases.length);
    let next = 0;
    const lane = async () => {
      for (let index = next++; index < cases.length; index = next++) {
        const testCase = cases[index];
        if (testCase === undefined) continue;
        const result = await runCase(stack, testCase, options.timeoutMs, options.observeAnswers);
        results[index] = result;
        options.onResult(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.jobs, cases.length) }, lane));
    return results;
  } finally {
    await stack.close().catch(() => undefined);
  }
}
