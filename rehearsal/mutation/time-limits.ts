// How long a mutant's case may run, and whether a kill by time is one. Each case's limit follows
// its own duration against the runbook as it is (the baseline): `factor` × that duration plus a
// margin, never under a floor. A case that fails because time ran out — its limit, or a step past
// its deadline on the case's clock — kills the mutant only when the baseline ended well inside that
// same limit (the step's own duration, for a deadline); otherwise the kill rests on nothing but the
// machine's pace that moment, and is inconclusive (time): it is reported, not counted as a kill.
import type { CaseResult } from '../case-runner';

export interface TimeLimitPolicy {
  /** A mutant's case gets this many times its baseline duration… */
  factor: number;
  /** …plus this… */
  marginMs: number;
  /** …and never less than this. */
  floorMs: number;
  /** A kill by time counts when the baseline took at most this share of the limit that ran out. */
  wellInside: number;
}

/** What the shipped mutation suite uses. */
export const DERIVED_LIMITS: TimeLimitPolicy = {
  factor: 3,
  marginMs: 10_000,
  floorMs: 30_000,
  wellInside: 0.5,
};

/** The limit of a mutant's run of a case whose baseline took `baselineMs`. */
export function mutantLimitMs(policy: TimeLimitPolicy, baselineMs: number): number {
  return Math.max(policy.floorMs, Math.ceil(policy.factor * baselineMs + policy.marginMs));
}

/** The evidence behind a kill by time: the limit that ran out and what the baseline took of it. */
export interface TimeKill {
  /** `case`: the case's limit ran out; `step`: a step ran past its deadline. */
  ran: 'case' | 'step';
  limitMs: number;
  /** The baseline's duration of the same thing (the case, or that step); undefined when the baseline never ended that step. */
  baselineMs: number | undefined;
  /** Whether the baseline ended well inside the limit: only then is it a kill. */
  conclusive: boolean;
}

/** How long the baseline's run spent in the step of `stepKey`, when it ran and ended it. */
function stepMs(baseline: CaseResult, stepKey: string): number | undefined {
  const record = baseline.steps.find((step) => step.key === stepKey);
  if (record?.startedAt === undefined || record.endedAt === undefined) return undefined;
  return record.endedAt - record.startedAt;
}

/**
 * Judges a mutant's case that ran out of time (`outcome.error.code` is TEST_CASE_TIMEOUT) against
 * the same case's baseline; `limitMs` is the case limit the mutant's run had, `wellInside` the
 * policy's share.
 */
export function judgeTimeKill(
  wellInside: number,
  outcome: CaseResult,
  baseline: CaseResult,
  limitMs: number,
): TimeKill {
  const judged = (ran: TimeKill['ran'], limit: number, took: number | undefined): TimeKill => ({
    ran,
    limitMs: limit,
    baselineMs: took,
    conclusive: took !== undefined && took <= wellInside * limit,
  });
  if (outcome.missed !== undefined)
    return judged('step', outcome.missed.budgetMs, stepMs(baseline, outcome.missed.stepKey));
  return judged('case', limitMs, baseline.durationMs);
}
