// Checks a state case of a test file (`state:` instead of `runbook:`): its state file loads as
// `tideline drift` loads it, every finding it expects names a rule of that file and a service of
// the case's cloud, and its `expect.calls` and `${{ cloud.… }}` references name what exists. A
// typo would otherwise never match a finding, and a mismatch would blame the cloud. Pure apart
// from reading the state file and its repair runbooks.
import { dirname, resolve } from 'node:path';
import type { CompiledGovernance } from '../dsl/policies';
import { suggestionHint } from '../dsl/suggest';
import { loadStateFile, type LoadedState } from '../state/state-file';
import { referenceProblems, type Names } from './cloud-references';
import type { StateTestCase } from './test-file-schema';
import { operationProblems, pathLabel, type StrictnessProblem } from './test-file-strictness';

export type StateCaseProblem = Omit<StrictnessProblem, 'code'> & {
  code: StrictnessProblem['code'] | 'TEST_STATE_INVALID';
};

export interface LoadedStateCase extends StateTestCase {
  /** The test file it is in, as shown to the user. */
  file: string;
  /** The state file, loaded and checked. */
  loadedState: LoadedState;
  /** The file's `governance`, compiled: the repair runs go to a worker that enforces it. */
  governance?: CompiledGovernance;
  /** Where a part of the case (a path from the case, e.g. `['findings', 0]`) is in the file. */
  locate(path: readonly (string | number)[]): { line: number; column: number };
}

/** Every expected finding that names a rule the state file lacks or a service the cloud lacks. */
function findingProblems(testCase: StateTestCase, state: LoadedState): StateCaseProblem[] {
  const rules = state.rules.map((rule) => rule.name);
  const services = testCase.cloud.services.map((service) => service.name);
  const lists = [
    { path: ['findings'], findings: testCase.findings },
    { path: ['expect', 'findings'], findings: testCase.expect?.findings ?? [] },
  ];
  return lists.flatMap(({ path, findings }) =>
    findings.flatMap((finding, index): StateCaseProblem[] => {
      const at = [...path, index];
      return [
        ...(rules.includes(finding.rule)
          ? []
          : [
              {
                code: 'TEST_REFERENCE_UNKNOWN' as const,
                path: [...at, 'rule'],
                anchor: 'value' as const,
                message: `${pathLabel([...at, 'rule'])}: state file ${testCase.state} has no rule "${finding.rule}"`,
                hint: suggestionHint(finding.rule, rules, 'rules'),
              },
            ]),
        ...(services.includes(finding.service)
          ? []
          : [
              {
                code: 'TEST_REFERENCE_UNKNOWN' as const,
                path: [...at, 'service'],
                anchor: 'value' as const,
                message: `${pathLabel([...at, 'service'])}: this case's cloud has no service named "${finding.service}"`,
                hint: suggestionHint(finding.service, services, 'services'),
              },
            ]),
      ];
    }),
  );
}

/**
 * The state case loaded, or its problems, each with its place in the case. `testFile` is the test
 * file's absolute path: the state file is relative to it.
 */
export function checkStateCase(
  testCase: StateTestCase,
  testFile: string,
  names: Names,
  display: (absolute: string) => string,
): { ok: true; state: LoadedState } | { ok: false; problems: StateCaseProblem[] } {
  const loaded = loadStateFile(resolve(dirname(testFile), testCase.state), display);
  if (!loaded.ok) {
    const [first, ...rest] = loaded.problems;
    const detail =
      first === undefined
        ? 'cannot be loaded'
        : `${first.file}:${first.line}:${first.column}: ${first.message}`;
    return {
      ok: false,
      problems: [
        {
          code: 'TEST_STATE_INVALID',
          path: ['state'],
          anchor: 'value',
          message: `state ${testCase.state}: ${detail}${rest.length > 0 ? ` (and ${rest.length} more)` : ''}`,
          hint: 'tideline drift shows every problem of the state file',
        },
      ],
    };
  }
  const problems: StateCaseProblem[] = [
    ...findingProblems(testCase, loaded.state),
    ...operationProblems(testCase.expect?.calls),
    ...referenceProblems(testCase.expect ?? {}, names).map((found) => ({
      code: 'TEST_REFERENCE_UNKNOWN' as const,
      path: ['expect', ...found.path],
      anchor: 'value' as const,
      message: found.message,
      hint: "name a service or VPC of the case's cloud",
    })),
  ];
  return problems.length > 0 ? { ok: false, problems } : { ok: true, state: loaded.state };
}
