// What a test case names must exist: each operation its `expect.calls` counts is in the Cloud API
// catalogue, and each step it names (approvals, operator actions on holds, the cancel, and every
// step of its expectations) is a step of its runbook (or, for an approval, a policy's approval of one), as the engine keys it (`create/undo.delete_set`,
// `each[2].stop`, `par.branch.step`) or by its id. A typo would otherwise count 0, wait for
// nothing or never be checked — and pass. Pure: problems come back with their place in the case.
import { ACTION_NAMES } from '../cloud/operations';
import type { RunbookDefinition } from '../dsl/definition';
import { suggestionHint } from '../dsl/suggest';
import { keyedSteps, patternKey } from './coverage';
import type { TestCase } from './test-file-schema';

export type StrictnessCode = 'TEST_OPERATION_UNKNOWN' | 'TEST_REFERENCE_UNKNOWN';

export interface StrictnessProblem {
  code: StrictnessCode;
  /** Where in the case (keys and indices). */
  path: (string | number)[];
  /** `key`: the problem is the key itself (a map's entry), not its value. */
  anchor: 'key' | 'value';
  message: string;
  hint: string;
}

/** `['whenHeld', 0, 'step']` as `whenHeld[0].step`. */
export function pathLabel(path: readonly (string | number)[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

/** Each `expect.calls` key that is not a Cloud API operation (it would always count 0). */
export function operationProblems(calls: Readonly<Record<string, number>> | undefined): StrictnessProblem[] {
  const operations: readonly string[] = ACTION_NAMES;
  return Object.keys(calls ?? {})
    .filter((operation) => !operations.includes(operation))
    .map((operation) => ({
      code: 'TEST_OPERATION_UNKNOWN',
      path: ['expect', 'calls', operation],
      anchor: 'key',
      message: `expect.calls: "${operation}" is not a Cloud API operation, so it would always count 0`,
      hint: suggestionHint(operation, operations, 'operations'),
    }));
}

interface NamedStep {
  path: (string | number)[];
  anchor: 'key' | 'value';
  name: string;
}

/** Every step name the case uses, with where it is; `start` names no step in a policy record. */
function namedSteps(testCase: TestCase): NamedStep[] {
  const { expect } = testCase;
  return [
    ...(testCase.cancel !== undefined
      ? [{ path: ['cancel', 'step'], anchor: 'value' as const, name: testCase.cancel.step }]
      : []),
    ...testCase.whenHeld.flatMap((hold, i) =>
      hold.step !== undefined
        ? [{ path: ['whenHeld', i, 'step'], anchor: 'value' as const, name: hold.step }]
        : [],
    ),
    ...Object.keys(expect.steps ?? {}).map((name) => ({
      path: ['expect', 'steps', name],
      anchor: 'key' as const,
      name,
    })),
    ...(expect.failure?.step !== undefined
      ? [{ path: ['expect', 'failure', 'step'], anchor: 'value' as const, name: expect.failure.step }]
      : []),
    ...(expect.policies ?? []).flatMap((policy, i) =>
      policy.step !== 'start'
        ? [{ path: ['expect', 'policies', i, 'step'], anchor: 'value' as const, name: policy.step }]
        : [],
    ),
  ];
}

/**
 * `approvalRules`: the file's policy rules that require an approval; a step they apply to asks for
 * it as the approval step `<step key>.policy.<rule>`.
 */
export function strictnessProblems(
  testCase: TestCase,
  definition: RunbookDefinition,
  runbook: string,
  approvalRules: readonly string[],
): StrictnessProblem[] {
  const problems: StrictnessProblem[] = operationProblems(testCase.expect.calls);

  const keyed = keyedSteps(definition);
  const keys = keyed.map((entry) => entry.key);
  const known = new Set([...keys, ...keyed.map((entry) => entry.step.id)]);
  for (const { path, anchor, name } of namedSteps(testCase))
    if (!known.has(patternKey(name)))
      problems.push({
        code: 'TEST_REFERENCE_UNKNOWN',
        path,
        anchor,
        message: `${pathLabel(path)}: runbook ${runbook} has no step "${name}"`,
        hint: suggestionHint(patternKey(name), keys, 'steps'),
      });

  // The driver answers the approval the run asks for under exactly this key.
  const approvals = [
    ...keyed.filter((entry) => entry.step.kind === 'approve').map((entry) => entry.key),
    ...keys.flatMap((key) => approvalRules.map((rule) => `${key}.policy.${rule}`)),
  ];
  testCase.approvals.forEach((approval, i) => {
    if (approvals.includes(patternKey(approval.step))) return;
    const path = ['approvals', i, 'step'];
    const isStep = keys.includes(patternKey(approval.step));
    problems.push({
      code: 'TEST_REFERENCE_UNKNOWN',
      path,
      anchor: 'value',
      message: isStep
        ? `${pathLabel(path)}: step "${approval.step}" of runbook ${runbook} is not an approval step`
        : `${pathLabel(path)}: runbook ${runbook} has no approval step "${approval.step}"`,
      hint: suggestionHint(patternKey(approval.step), approvals, 'approval steps'),
    });
  });
  return problems;
}
