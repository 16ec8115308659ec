// One group of the mutation suite of the shipped runbooks (shipped-mutation-groups.ts), as
// `tideline test --mutate` runs it. The group's cases and state cases pass against the runbooks
// as they are, and every answer of their clouds matches the vendor's API document with the
// overlays of test/api-conformance/ (this baseline is the one run of the shipped cases per CI run).
// Then every mutant of the group's runbooks is killed by a case or listed, with its reason, in the
// runbook's `.mutants.yaml` (equivalent, or a known survivor). An unlisted survivor fails with its
// diff. Each mutant case's limit follows its baseline duration (rehearsal/mutation/time-limits.ts);
// a kill by time the baseline does not back is inconclusive (time): printed, not counted a kill.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveTemporalBinary } from '../../scripts/setup-temporal';
import type { CaseResult } from '../../rehearsal/case-runner';
import { planMutation } from '../../rehearsal/mutation/mutation-plan';
import {
  inconclusiveByTime,
  mutationFailed,
  runMutation,
  type MutantResult,
} from '../../rehearsal/mutation/run-mutants';
import { DERIVED_LIMITS, mutantLimitMs } from '../../rehearsal/mutation/time-limits';
import { loadSuite } from '../../rehearsal/run-suite';
import { answerCheckForTests } from './answer-conformance';
import {
  groupRunbooks,
  groupTestFiles,
  MUTATION_GROUPS,
  type MutationGroupName,
} from './shipped-mutation-groups';
import { describeWithTools, goToolMissing } from './tool-requirements';
import { REPO_ROOT } from './worker-process';

/** Go 1.23 builds the pinned Temporal CLI when none is on the machine. */
const MIN_GO_MINOR = 23;

/**
 * Mutants mostly wait, on the case clouds' pace and their polls: one group alone with four at a
 * time left 80 % of two cores idle. Eight at a time per group; the baseline runs as many, so a
 * case's limit follows its duration at that load.
 */
const JOBS = 8;

/** The baseline's limit per case: it has no baseline of its own to follow. */
const BASELINE_TIMEOUT_MS = 120_000;

function failedText(results: readonly CaseResult[]): string {
  return results
    .filter((r) => !r.passed)
    .map((r) =>
      [
        r.name,
        r.error?.message ?? '',
        ...r.mismatches.map((m) => `${m.what}: ${m.message ?? JSON.stringify(m.actual)}`),
      ].join('\n  '),
    )
    .join('\n');
}

/** The group's counts as the suite reports them: kills that rest on time only, and inconclusive ones, apart. */
export function groupSummary(
  name: string,
  baseline: readonly CaseResult[],
  results: readonly MutantResult[],
): string {
  const killed = results.filter((r) => r.verdict.status === 'killed' && !inconclusiveByTime(r));
  const byTime = killed.filter((r) => r.verdict.status === 'killed' && r.verdict.onlyByTimeout).length;
  const count = (status: MutantResult['verdict']['status']) =>
    results.filter((r) => r.verdict.status === status).length;
  const inconclusive = results.filter(inconclusiveByTime);
  const limits = baseline.map((r) => mutantLimitMs(DERIVED_LIMITS, r.durationMs) / 1000);
  return [
    `mutation group ${name}: ${results.length} mutants, ${killed.length} killed (${byTime} of them only by time), ` +
      `${inconclusive.length} inconclusive (time), ${count('survived')} survived, ${count('equivalent')} equivalent; ` +
      `baseline ${baseline.length} cases, mutant case limits ${Math.round(Math.min(...limits))}–${Math.round(Math.max(...limits))} s`,
    ...inconclusive.map((r) => {
      const time = r.verdict.status === 'killed' ? r.verdict.time : undefined;
      const took =
        time?.baselineMs === undefined
          ? 'not ended in the baseline'
          : `${time.baselineMs} ms in the baseline`;
      return `  inconclusive (time) ${r.runbook} ${r.mutant.id}: ${time?.ran ?? '?'} limit ${time?.limitMs ?? '?'} ms, ${took}`;
    }),
  ].join('\n');
}

/**
 * Each baseline case's and mutant's time and verdict, kept in test-artifacts/mutation/ (git-ignored)
 * to see where a group's time goes: which mutants ran every case, which ended on a limit.
 */
function keepTimings(name: string, baseline: readonly CaseResult[], results: readonly MutantResult[]): void {
  const dir = path.join(REPO_ROOT, 'test-artifacts', 'mutation');
  mkdirSync(dir, { recursive: true });
  const report = {
    baseline: baseline.map((r) => ({ case: `${r.file} ${r.name}`, ms: r.durationMs })),
    mutants: results.map((r) => ({
      mutant: `${r.runbook} ${r.mutant.id}`,
      ms: r.durationMs,
      casesRun: r.casesRun,
      verdict: r.verdict.status,
      ...(r.verdict.status === 'killed' && {
        byTime: r.verdict.onlyByTimeout,
        killedBy: r.verdict.kill.case,
      }),
    })),
  };
  writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
}

/** Declares the group's suite: one test, which runs its baseline and its mutants. */
export function describeMutationGroup(name: MutationGroupName): void {
  const group = MUTATION_GROUPS[name];
  const temporalMissing = goToolMissing(
    'the Temporal CLI',
    resolveTemporalBinary({ env: process.env }) !== undefined,
    MIN_GO_MINOR,
  );
  describeWithTools(`the mutation suite of the shipped runbooks: ${name}`, temporalMissing, () => {
    test(
      'the cases pass, their clouds answer as documented, and every mutant is killed or listed',
      async () => {
        const suite = loadSuite(groupTestFiles(group), REPO_ROOT, undefined);
        if (!suite.ok) throw new Error(JSON.stringify(suite.problems));
        const plan = planMutation(suite.cases, REPO_ROOT);
        if (!plan.ok) throw new Error(JSON.stringify(plan.problems));
        expect(plan.targets.map((t) => t.runbook).sort()).toEqual(groupRunbooks(group).sort());
        // Off, with a note, only where the vendor document cannot be had (never in CI).
        const recorder = answerCheckForTests();
        const run = await runMutation(plan.targets, {
          env: process.env,
          jobs: JOBS,
          timeoutMs: BASELINE_TIMEOUT_MS,
          limits: DERIVED_LIMITS,
          stateCases: suite.stateCases,
          ...(recorder !== undefined && { observeAnswers: recorder.observe }),
          log: () => undefined,
          onBaseline: () => undefined,
          onMutant: () => undefined,
        });
        expect(run.baseline).toHaveLength(suite.cases.length + suite.stateCases.length);
        if (!run.ok) throw new Error(`cases fail against the shipped runbooks: ${failedText(run.baseline)}`);
        if (recorder !== undefined) {
          // Every case's cloud was heard: its starting state, the run's calls and the end state read.
          expect(recorder.answersChecked).toBeGreaterThan(run.baseline.length * 5);
          expect(recorder.report()).toBeUndefined();
        }
        console.log(groupSummary(name, run.baseline.slice(0, suite.cases.length), run.mutants));
        keepTimings(name, run.baseline, run.mutants);
        const survivors = run.mutants
          .filter((r) => r.verdict.status === 'survived' && r.verdict.known === undefined)
          .map((r) => `${r.runbook} ${r.mutant.id}\n${r.mutant.diff.lines.join('\n')}`);
        expect(survivors).toEqual([]);
        const mutants = plan.targets.reduce((sum, target) => sum + target.mutants.length, 0);
        expect(run.mutants).toHaveLength(mutants);
        // Every listed entry is one of the mutants (the plan refuses stale ones).
        const equivalent = run.mutants.filter((r) => r.verdict.status === 'equivalent').length;
        expect(equivalent).toBe(plan.targets.reduce((sum, target) => sum + target.equivalent.size, 0));
        expect(mutationFailed(run.mutants)).toBe(false);
      },
      // Jest's own ceiling for the group, far above its measured time (docs/testing.md).
      40 * 60_000,
    );
  });
}
