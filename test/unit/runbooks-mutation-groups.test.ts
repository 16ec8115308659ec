// The mutation suite's groups cover the shipped test files exactly: every `runbooks/*.test.yaml`
// is in one group, no more; each group's runbook cases run the runbooks it names and no others, so
// no runbook's mutants are left out or split; each group has its test file and no test file is
// left without a group.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { loadSuite } from '../../rehearsal/run-suite';
import {
  groupRunbooks,
  groupTestFile,
  groupTestFiles,
  MUTATION_GROUPS,
  SHIPPED_RUNBOOKS_DIR,
  type MutationGroup,
} from '../helpers/shipped-mutation-groups';
import { REPO_ROOT } from '../helpers/worker-process';

const groups: [string, MutationGroup][] = Object.entries(MUTATION_GROUPS);

test('every shipped test file is in exactly one group', () => {
  const shipped = readdirSync(path.join(REPO_ROOT, SHIPPED_RUNBOOKS_DIR))
    .filter((name) => name.endsWith('.test.yaml'))
    .map((name) => path.posix.join(SHIPPED_RUNBOOKS_DIR, name))
    .sort();
  const grouped = groups.flatMap(([, group]) => groupTestFiles(group)).sort();
  expect(grouped).toEqual(shipped);
  expect(new Set(grouped).size).toBe(grouped.length);
});

test.each(groups)(
  'group %s: its runbook cases run its runbooks, and its state files only state cases',
  (_, group) => {
    const suite = loadSuite(groupTestFiles(group), REPO_ROOT, undefined);
    if (!suite.ok) throw new Error(JSON.stringify(suite.problems));
    const runbookOf = (c: { file: string; runbook: string }) =>
      path.posix.normalize(path.posix.join(path.posix.dirname(c.file), c.runbook));
    expect([...new Set(suite.cases.map(runbookOf))].sort()).toEqual(groupRunbooks(group).sort());
    const stateFiles = new Set(
      groupTestFiles({ runbooks: [], ...(group.stateFiles && { stateFiles: group.stateFiles }) }),
    );
    for (const testCase of suite.cases) expect(stateFiles.has(testCase.file)).toBe(false);
    for (const stateCase of suite.stateCases) expect(stateFiles.has(stateCase.file)).toBe(true);
  },
);

test('every group has its test file, and every mutation suite file is a group', () => {
  const suites = readdirSync(path.join(REPO_ROOT, 'test', 'integration'))
    .filter((name) => name.startsWith('rehearsal-mutation-shipped-'))
    .map((name) => path.posix.join('test', 'integration', name))
    .sort();
  expect(suites).toEqual(groups.map(([name]) => groupTestFile(name)).sort());
});
