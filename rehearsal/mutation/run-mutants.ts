// Runs each mutant against its runbook's cases on one test stack, at most `jobs` mutants at a
// time. The cases first run against the runbooks as they are: a failing case would kill every
// mutant and prove nothing, so then no mutant runs. A mutant's cases run in kill order
// (casesInKillOrder) and stop at the first case that kills. A case that fails because the run
// outlived a step's deadline or its case limit is a kill only by a timeout: the expectations it
// found unmet at that moment say what the mutant got wrong, but no run of it ended for them to be
// checked against. Such a kill is judged against the baseline (time-limits.ts); one the baseline
// does not back is inconclusive (time), and the mutant's remaining cases still run, since one of
// them may kill it outright. With a time-limit policy each case's limit follows its baseline
// duration; without one every case has the flat `timeoutMs`. The first pass can also run state
// cases and hear every answer of its clouds, so one pass over a suite both proves it and times it.
import type { CaseResult } from '../case-runner';
import { runCase } from '../case-runner';
import type { LoadedCase } from '../test-file-loader';
import type { AnswerObserver } from '../../local-cloud/api';
import type { Dialect } from '../../local-cloud/dialect';
import type { LoadedStateCase } from '../state-case-loader';
import { runStateCase } from '../state-case-runner';
import { startTestStack, type TestStack } from '../test-stack';
import type { Mutant } from './derive-mutants';
import type { MutationTarget } from './mutation-plan';
import {
  DERIVED_LIMITS,
  judgeTimeKill,
  mutantLimitMs,
  type TimeKill,
  type TimeLimitPolicy,
} from './time-limits';

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
  /**
   * `listedAsSurvivor`: the runbook's `.mutants.yaml` still lists it as a known survivor. `time`:
   * for a kill only by a timeout, the limit that ran out against the baseline; `time.conclusive`
   * false makes it inconclusive (time), not a kill (`inconclusiveByTime`).
   */
  | { status: 'killed'; kill: Kill; onlyByTimeout: boolean; listedAsSurvivor?: true; time?: TimeKill }
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
  /** Each mutant case's limit from its baseline duration (else the flat `timeoutMs`). */
  limits?: TimeLimitPolicy;
  /** State cases the first pass runs too (they have no mutants). */
  stateCases?: readonly LoadedStateCase[];
  /** Hears every answer of every local cloud of the first pass (not the mutants'). */
  observeAnswers?: AnswerObserver;
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

/** A case of a mutant's run: the case, its baseline result and the limit it has. */
interface TimedCase {
  testCase: LoadedCase;
  baseline: CaseResult;
  limitMs: number;
}

/**
 * The order a mutant's cases run in: first the cases whose baseline run reached the mutated step
 * (a case that never reached it runs the mutant as it ran the runbook, up to where it ended), then
 * the others, in case the mutation shows elsewhere; each part fastest first, as the baseline timed
 * it. Every case still runs until one kills, so the order changes how soon, never the verdict.
 */
export function casesInKillOrder<T extends { baseline: Pick<CaseResult, 'durationMs' | 'steps'> }>(
  stepId: string,
  cases: readonly T[],
): T[] {
  const fastestFirst = [...cases].sort((a, b) => a.baseline.durationMs - b.baseline.durationMs);
  const reached = (c: T) => c.baseline.steps.some((step) => step.id === stepId);
  return [...fastestFirst.filter(reached), ...fastestFirst.filter((c) => !reached(c))];
}

/** Whether the mutant's only kill is one by time that its baseline does not back. */
export function inconclusiveByTime(result: MutantResult): boolean {
  return result.verdict.status === 'killed' && result.verdict.time?.conclusive === false;
}

async function runMutant(
  stack: TestStack,
  target: MutationTarget,
  mutant: Mutant,
  cases: readonly TimedCase[],
  wellInside: number,
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
  const listed = target.survivors.has(mutant.id) ? { listedAsSurvivor: true as const } : {};
  let casesRun = 0;
  let inconclusive: MutantVerdict | undefined;
  for (const { testCase, baseline, limitMs } of cases) {
    casesRun++;
    const outcome = await runCase(stack, { ...testCase, definition: mutant.definition }, limitMs);
    if (outcome.passed) continue;
    const kill = killOf(outcome);
    if (!kill.byTimeout) return result({ status: 'killed', kill, onlyByTimeout: false, ...listed }, casesRun);
    const time = judgeTimeKill(wellInside, outcome, baseline, limitMs);
    const verdict: MutantVerdict = { status: 'killed', kill, onlyByTimeout: true, time, ...listed };
    if (time.conclusive) return result(verdict, casesRun);
    inconclusive ??= verdict;
  }
  if (inconclusive !== undefined) return result(inconclusive, casesRun);
  const known = target.survivors.get(mutant.id);
  return result({ status: 'survived', ...(known !== undefined && { known }) }, casesRun);
}

export async function runMutation(
  targets: readonly MutationTarget[],
  options: MutationOptions,
): Promise<MutationRun> {
  const stack = await startTestStack(options.env, options.log, options.dialect);
  try {
    const { timeoutMs, observeAnswers, limits } = options;
    const cases = targets.flatMap((target) => target.cases);
    const first = [
      ...cases.map((testCase) => () => runCase(stack, testCase, timeoutMs, observeAnswers)),
      ...(options.stateCases ?? []).map((c) => () => runStateCase(stack, c, timeoutMs, observeAnswers)),
    ];
    const baseline = await bounded(first, options.jobs, async (run) => {
      const outcome = await run();
      options.onBaseline(outcome);
      return outcome;
    });
    if (baseline.some((outcome) => !outcome.passed)) return { ok: false, baseline };
    const timed = new Map(
      cases.map((testCase, index) => {
        const result = baseline[index] as CaseResult;
        const limitMs = limits === undefined ? timeoutMs : mutantLimitMs(limits, result.durationMs);
        return [testCase, { testCase, baseline: result, limitMs }];
      }),
    );
    const work = targets.flatMap((target) => {
      const cases = target.cases.map((testCase) => timed.get(testCase) as TimedCase);
      return target.mutants.map((mutant) => ({
        target,
        mutant,
        cases: casesInKillOrder(mutant.stepId, cases),
      }));
    });
    const wellInside = (limits ?? DERIVED_LIMITS).wellInside;
    const mutants = await bounded(work, options.jobs, async ({ target, mutant, cases: ordered }) => {
      const decided = await runMutant(stack, target, mutant, ordered, wellInside);
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
