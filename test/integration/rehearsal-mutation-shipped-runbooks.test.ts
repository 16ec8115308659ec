// The mutation suite of the shipped runbooks, as `tideline test --mutate runbooks/` runs it: the
// cases pass against the runbooks as they are, and every mutant of the ten runbooks is killed by
// a case or listed, with its reason, in the runbook's `.mutants.yaml` (equivalent, or a known
// survivor). An unlisted survivor fails the test with its diff, so a weakened case or a runbook
// change that no case notices shows up in CI.
import { resolveTemporalBinary } from '../../scripts/setup-temporal';
import { planMutation } from '../../rehearsal/mutation/mutation-plan';
import { mutationFailed, runMutation } from '../../rehearsal/mutation/run-mutants';
import { loadSuite } from '../../rehearsal/run-suite';
import { describeWithTools, goToolMissing } from '../helpers/tool-requirements';
import { REPO_ROOT } from '../helpers/worker-process';

/** Go 1.23 builds the pinned Temporal CLI when none is on the machine. */
const MIN_GO_MINOR = 23;
const temporalMissing = goToolMissing(
  'the Temporal CLI',
  resolveTemporalBinary({ env: process.env }) !== undefined,
  MIN_GO_MINOR,
);

/** Mutants mostly wait (on the cloud's pace, on their polls); six at once keep a loaded CI machine from timing cases out. */
const JOBS = 6;

describeWithTools('the mutation suite of the shipped runbooks', temporalMissing, () => {
  test(
    'every mutant is killed by a case or listed as equivalent',
    async () => {
      const suite = loadSuite(['runbooks'], REPO_ROOT, undefined);
      if (!suite.ok) throw new Error(JSON.stringify(suite.problems));
      const plan = planMutation(suite.cases, REPO_ROOT);
      if (!plan.ok) throw new Error(JSON.stringify(plan.problems));
      expect(plan.targets).toHaveLength(10);
      const run = await runMutation(plan.targets, {
        env: process.env,
        jobs: JOBS,
        timeoutMs: 120_000,
        log: () => undefined,
        onBaseline: () => undefined,
        onMutant: () => undefined,
      });
      if (!run.ok)
        throw new Error(
          `cases fail against the shipped runbooks: ${run.baseline
            .filter((r) => !r.passed)
            .map((r) =>
              [
                r.name,
                r.error?.message ?? '',
                ...r.mismatches.map((m) => `${m.what}: ${m.message ?? JSON.stringify(m.actual)}`),
              ].join('\n  '),
            )
            .join('\n')}`,
        );
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
    // 24 min on 2 cores beside the rest of `.ci/run` before fork-and-promote's slow cases (about 6
    // more): room for a loaded machine, well inside CI's 90.
    50 * 60_000,
  );
});
