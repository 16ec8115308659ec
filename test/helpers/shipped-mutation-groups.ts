// The mutation suite of the shipped runbooks, in groups Jest can run on different workers: each
// group is one test file, test/integration/rehearsal-mutation-shipped-<group>.test.ts, that runs
// the runbook cases of its test files against their runbooks (the baseline, which also checks every
// answer of their clouds against the vendor's API document and times each case), then every mutant
// of those runbooks. A runbook's cases all live in its `<runbook>.test.yaml`, so a group names the
// runbooks it mutates; `stateFiles` are test files of state cases only, run in the group's
// baseline. test/unit/shipped-mutation-groups.test.ts checks that every shipped test file is in
// exactly one group and every group has its test file, so a new runbook cannot be left out.
//
// The groups are balanced by mutant count and measured time: fork-and-promote (88 mutants, slow
// cases) alone, the other 194 mutants in three groups of about 65.
import path from 'node:path';

export interface MutationGroup {
  /** The runbooks mutated, by name (`runbooks/<name>.yaml`, cases in `runbooks/<name>.test.yaml`). */
  runbooks: readonly string[];
  /** Test files of state cases (`runbooks/<name>.test.yaml`), run in the baseline only. */
  stateFiles?: readonly string[];
}

export const MUTATION_GROUPS = {
  'fork-and-promote': { runbooks: ['fork-and-promote'] },
  'replica-ha-fleet': { runbooks: ['add-read-replica', 'enable-ha'], stateFiles: ['prod-fleet'] },
  'provision-pooler-password': {
    runbooks: ['provision-production-service', 'enable-pooler', 'rotate-password'],
  },
  'resize-vpc-dev-services': {
    runbooks: ['resize-with-rollback', 'vpc-with-peering', 'start-dev-services', 'stop-dev-services'],
  },
} as const satisfies Record<string, MutationGroup>;

export type MutationGroupName = keyof typeof MUTATION_GROUPS;

export const SHIPPED_RUNBOOKS_DIR = 'runbooks';

/** Where a group's suite is, relative to the repository. */
export function groupTestFile(name: string): string {
  return path.posix.join('test', 'integration', `rehearsal-mutation-shipped-${name}.test.ts`);
}

/** The group's test files, relative to the repository: its runbooks' and its state files. */
export function groupTestFiles(group: MutationGroup): string[] {
  return [...group.runbooks, ...(group.stateFiles ?? [])].map((name) =>
    path.posix.join(SHIPPED_RUNBOOKS_DIR, `${name}.test.yaml`),
  );
}

/** The runbooks the group mutates, as the mutation plan shows them. */
export function groupRunbooks(group: MutationGroup): string[] {
  return group.runbooks.map((name) => path.posix.join(SHIPPED_RUNBOOKS_DIR, `${name}.yaml`));
}
