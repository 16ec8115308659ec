// Runs each mutant against its runbook's cases on one test stack, at most `jobs` mutants at a
// time. The cases first run against the runbooks as they are: a failing case would kill every
// mutant and prove nothing, so then no mutant runs. A mutant's cases run fastest first (as the
// first pass timed them) and stop at the first case that fails. A case that fails because the run
// outlived a step's deadline is a kill only by a timeout: the expectations it found unmet at that
// moment say what the mutant got wrong, but no run of it ended for them to be checked against.
import type { CaseResult } from '../case-runner';
import { runCase } from '../case-runner';
import type { LoadedCase } from '../test-file-loader';
import type { Dialect } from '../../local-cloud/dialect';
import { startTestStack, type TestStack } from '../test-stack';
import type { Mutant } from './derive-mutants';
import type { MutationTarget } from './mutation-plan';

export interface Kill {
  file: string;
  case: string;
  /** The expectations the case found unmet (`calls.service.delete`), or why it could not finish. */
  failed: string[];
  /** The case ran out of time (a step past its deadline, or the flat case timeout). */
  byTimeout: boolean;
  /** The case's error message, when it has one. */
  message?: string;
}

export type MutantVerdict =
  /** `listedAsSurvivor`: the runbook's `.mutants.yaml` still lists it as a known survivor. */
  | { status: 'killed'; kill: Kill; onlyByTimeout: boolean; listedAsSurvivor?: true }
  /** `known`: why no case kills it yet, as its `.mutants.yaml` lists it. */
  | { status: 'survived'; known?: string }
  | { status: 'equivalent'; reason: string };

export interface MutantResult {
  runbook: string;
  mutant: Mutant;
  verdict: MutantVerdict;
  /** How many cases ran against it. */
  casesRun: number;
  durationMs: number;
}

export interface MutationOptions {
  env: NodeJS.ProcessEnv;
  jobs: number;
  timeoutMs: number;
  log: (line: string) => void;
  /** Called as each case of the first pass ends. */
  onBaseline: (result: CaseResult) => void;
  /** Called as each mutant is decided, in the order they are. */
  onMutant: (result: MutantResult) => void;
  /** The dialect the cases' local clouds answer in (default: current). */
  dialect?: Dialect;
}

export type MutationRun =
  { ok: true; baseline: CaseResult[]; mutants: MutantResult[] } | { ok: false; baseline: CaseResult[] };

/** Runs `work` over `items`, at most `jobs` at a time; results in the order of `items`. */
async function bounded<T, R>(items: readonly T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < items.length; index = next++) {
      const item = items[index] as T;
      results[index] = await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, lane));
  return results;
}

function killOf(result: CaseResult): Kill {
  return {
    file: result.file,
    case: result.name,
    failed:
      result.mismatches.length > 0
        ? result.mismatches.map((m) => m.what)
        : [result.error?.code ?? 'TEST_CASE_ERROR'],
    byTimeout: result.error?.code === 'TEST_CASE_TIMEOUT',
    ...(result.error !== undefined && { message: result.error.message }),
  };
}

async function runMutant(
  stack: TestStack,
  target: MutationTarget,
  mutant: Mutant,
  cases: readonly LoadedCase[],
  timeoutMs: number,
): Promise<MutantResult> {
  const started = Date.now();
  const reason = target.equivalent.get(mutant.id);
  const result = (verdict: MutantVerdict, casesRun: number): MutantResult => ({
    runbook: target.runbook,
    mutant,
    verdict,
    casesRun,
    durationMs: Date.now() - started,
  });
  if (reason !== undefined) return result({ status: 'equivalent', reason }, 0);
  let casesRun = 0;
  for (const testCase of cases) {
    casesRun++;
    const outcome = await runCase(stack, { ...testCase, definition: mutant.definition }, timeoutMs);
    if (!outcome.passed) {
      const kill = killOf(outcome);
      const listed = target.survivors.has(mutant.id) ? { listedAsSurvivor: true as const } : {};
      return result({ status: 'killed', kill, onlyByTimeout: kill.byTimeout, ...listed }, casesRun);
    }
  }
  const known = target.survivors.get(mutant.id);
  return result({ status: 'survived', ...(known !== undefined && { known }) }, casesRun);
}

export async function runMutation(
  targets: readonly MutationTarget[],
  options: MutationOptions,
): Promise<MutationRun> {
  const stack = await startTestStack(options.env, options.log, options.dialect);
  try {
    const cases = targets.flatMap((target) => target.cases);
    const baseline = await bounded(cases, options.jobs, async (testCase) => {
      const outcome = await runCase(stack, testCase, options.timeoutMs);
      options.onBaseline(outcome);
      return outcome;
    });
    if (baseline.some((outcome) => !outcome.passed)) return { ok: false, baseline };
    const took = new Map(cases.map((testCase, index) => [testCase, baseline[index]?.durationMs ?? 0]));
    const work = targets.flatMap((target) => {
      const fastestFirst = [...target.cases].sort((a, b) => (took.get(a) ?? 0) - (took.get(b) ?? 0));
      return target.mutants.map((mutant) => ({ target, mutant, cases: fastestFirst }));
    });
    const mutants = await bounded(work, options.jobs, async ({ target, mutant, cases: ordered }) => {
      const decided = await runMutant(stack, target, mutant, ordered, options.timeoutMs);
      options.onMutant(decided);
      return decided;
    });
    return { ok: true, baseline, mutants };
  } finally {
    await stack.close().catch(() => undefined);
  }
}

/**
 * Whether a mutant survived that no \`.mutants.yaml\` lists. A listed survivor that a case killed
 * is reported, not a failure: a survivor that depends on the cloud's timing may be killed by a
 * run that happened to be slow.
 */
export function mutationFailed(results: readonly MutantResult[]): boolean {
  return results.some(({ verdict }) => verdict.status === 'survived' && verdict.known === undefined);
}
