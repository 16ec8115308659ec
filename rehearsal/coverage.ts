// What the cases of `tideline test` exercised of each runbook: its steps, its branches and its
// failure paths, counted from the runbook's definition (one walk of its step tree,
// dsl/step-tree.ts) against the step records each case's run ended with. Pure.
//
// How steps are counted:
// - Every step of the definition counts once: top-level ones, those in parallel branches and
//   foreach bodies, and compensation steps. A child runbook (`runbook:` step) counts as that one
//   step; its own steps run in another workflow and belong to the child's definition.
// - A step inside a foreach counts once, however many iterations there are: it is reached when
//   any iteration of any case reached it. Records are matched by key with the iteration number
//   made a wildcard (`each[2].stop` is `each[*].stop`), the key the plan shows.
// - A step is reached when some case's run recorded it with a status other than pending or skipped.
import path from 'node:path';
import { assertNever } from '../cloud/assert-never';
import type { StepFailureCode } from '../contract/failure-codes';
import type { RunStatus, StepRecord, StepStatus } from '../contract/run-messages';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import { definitionRuntime } from '../dsl/step-kinds/runtime-table';
import { stepTree, type Frame } from '../dsl/step-tree';
import type { CaseResult } from './case-runner';
import type { LoadedCase } from './test-file-loader';

/**
 * `taken` / `not-taken`: a step with `if:` ran / was skipped; `approved` / `rejected`: an
 * approval's two answers; `compensated`: a step's compensation ran (even if it then failed).
 */
export type BranchOutcome = 'taken' | 'not-taken' | 'approved' | 'rejected' | 'compensated';

export interface CoverageBranch {
  /** The step's key, foreach iterations as `[*]`. */
  step: string;
  outcome: BranchOutcome;
}

/** A step seen failing, or the run rolled back (ended failed or cancelled) or held. */
export type FailurePath = { step: string } | { run: 'rollback' | 'hold' };

export interface CoverageCount<Item> {
  covered: number;
  total: number;
  /** What no case exercised, in the runbook's document order. */
  uncovered: Item[];
}

export interface RunbookCoverage {
  /** The runbook file, as the test files name it (relative to the current folder). */
  runbook: string;
  /** How many of the cases that ran use it. */
  cases: number;
  steps: CoverageCount<string>;
  branches: CoverageCount<CoverageBranch>;
  failurePaths: CoverageCount<FailurePath>;
}

/** What coverage reads of a loaded case and of its result. */
export type CoverageCase = Pick<LoadedCase, 'file' | 'runbook' | 'definition' | 'expect'>;
export type CoverageResult = Pick<CaseResult, 'steps' | 'mismatches' | 'error'>;

const REJECTED = 'APPROVAL_REJECTED' satisfies StepFailureCode;
const CANCELLED = 'CANCELLED' satisfies StepFailureCode;
const NOT_REACHED: ReadonlySet<StepStatus> = new Set(['pending', 'skipped']);
const COMPLETED: ReadonlySet<StepStatus> = new Set([
  'done',
  'compensating',
  'compensated',
  'compensation-failed',
]);
const COMPENSATION_RAN: ReadonlySet<StepStatus> = new Set(['compensated', 'compensation-failed']);

/** The key prefix the interpreter gives the steps a container holds (as the plan builder does). */
function prefixIn(parentKey: string, frame: Frame): string {
  switch (frame.type) {
    case 'branch':
      return `${parentKey}.${frame.branch}.`;
    case 'foreach':
      return `${parentKey}[*].`;
    case 'compensate':
      return `${parentKey}/undo.`;
    default:
      return assertNever(frame, 'step container');
  }
}

/** Every step of a definition with its key (foreach iterations as `[*]`), in document order. */
export function keyedSteps(definition: RunbookDefinition): { step: StepDefinition; key: string }[] {
  const keys = new Map<StepDefinition, string>();
  return stepTree(definition.steps).map(({ step, parent, frames }) => {
    const frame = frames.at(-1);
    const parentKey = parent === undefined ? undefined : keys.get(parent);
    const key =
      frame === undefined || parentKey === undefined ? step.id : `${prefixIn(parentKey, frame)}${step.id}`;
    keys.set(step, key);
    return { step, key };
  });
}

/** A record's key with its foreach iteration numbers made `[*]`. */
export function patternKey(key: string): string {
  return key.replace(/\[\d+\]/g, '[*]');
}

/**
 * Whether a step can fail on its own terms: calls, waits, approvals, asserts, fail steps and child
 * runbooks can; a sleep, parallel or foreach only by its `timeout` (a parallel's or foreach's other
 * failures are failures of the steps it holds, which count themselves).
 */
export function canFail(step: StepDefinition): boolean {
  return definitionRuntime(step).canFail || step.timeoutMs !== undefined;
}

/**
 * How the case's run ended: what the report said, read back from the status expectation (always
 * given) and its mismatch; unknown when the case could not be run or timed out.
 */
export function caseRunStatus(testCase: CoverageCase, result: CoverageResult): RunStatus | undefined {
  if (result.error !== undefined) return undefined;
  const mismatch = result.mismatches.find((m) => m.what === 'status');
  if (mismatch === undefined)
    return testCase.expect.status === 'waiting' ? 'running' : testCase.expect.status;
  return typeof mismatch.actual === 'string' ? (mismatch.actual as RunStatus) : undefined;
}

/** What the records of one step key showed, over every case of a runbook. */
interface Seen {
  reached: boolean;
  skipped: boolean;
  failed: boolean;
  /** Completed, and not by an operator skipping a held rejection (read for approvals). */
  approved: boolean;
  rejected: boolean;
  compensated: boolean;
}

function note(seen: Seen, record: StepRecord): void {
  if (!NOT_REACHED.has(record.status)) seen.reached = true;
  if (record.status === 'skipped') seen.skipped = true;
  // A step interrupted by a cancellation (a parallel sibling failing, say) did not fail itself.
  if (record.status === 'failed' && record.error?.type !== CANCELLED) seen.failed = true;
  if (COMPLETED.has(record.status) && record.error?.type !== REJECTED) seen.approved = true;
  if (record.error?.type === REJECTED) seen.rejected = true;
  if (COMPENSATION_RAN.has(record.status)) seen.compensated = true;
}

function counted<Item>(items: { item: Item; covered: boolean }[]): CoverageCount<Item> {
  return {
    covered: items.filter((i) => i.covered).length,
    total: items.length,
    uncovered: items.filter((i) => !i.covered).map((i) => i.item),
  };
}

function runbookCoverage(
  runbook: string,
  definition: RunbookDefinition,
  runs: readonly { testCase: CoverageCase; result: CoverageResult }[],
): RunbookCoverage {
  const seen = new Map<string, Seen>();
  let rolledBack = false;
  let held = false;
  for (const { testCase, result } of runs) {
    for (const record of result.steps) {
      const key = patternKey(record.key);
      let entry = seen.get(key);
      if (entry === undefined) {
        entry = {
          reached: false,
          skipped: false,
          failed: false,
          approved: false,
          rejected: false,
          compensated: false,
        };
        seen.set(key, entry);
      }
      note(entry, record);
    }
    const status = caseRunStatus(testCase, result);
    if (status === 'failed' || status === 'cancelled') rolledBack = true;
    if (status === 'held') held = true;
  }
  const steps: { item: string; covered: boolean }[] = [];
  const branches: { item: CoverageBranch; covered: boolean }[] = [];
  const failures: { item: FailurePath; covered: boolean }[] = [];
  for (const { step, key } of keyedSteps(definition)) {
    const s = seen.get(key);
    const branch = (outcome: BranchOutcome, covered: boolean | undefined) =>
      branches.push({ item: { step: key, outcome }, covered: covered === true });
    steps.push({ item: key, covered: s?.reached === true });
    if (step.if !== undefined) {
      branch('taken', s?.reached);
      branch('not-taken', s?.skipped);
    }
    if (step.kind === 'approve') {
      branch('approved', s?.approved);
      branch('rejected', s?.rejected);
    }
    if (step.compensate.length > 0) branch('compensated', s?.compensated);
    if (canFail(step)) failures.push({ item: { step: key }, covered: s?.failed === true });
  }
  failures.push({ item: { run: 'rollback' }, covered: rolledBack });
  failures.push({ item: { run: 'hold' }, covered: held });
  return {
    runbook,
    cases: runs.length,
    steps: counted(steps),
    branches: counted(branches),
    failurePaths: counted(failures),
  };
}

/** The runbook a case runs, as shown: its path relative to the test file's folder, resolved. */
export function caseRunbookFile(testCase: Pick<CoverageCase, 'file' | 'runbook'>): string {
  return path.join(path.dirname(testCase.file), testCase.runbook);
}

/**
 * The coverage of every runbook the cases run, by runbook file. `results[i]` is the result of
 * `cases[i]` (as runSuite gives them); only the cases given count, so a filter narrows it.
 */
export function suiteCoverage(
  cases: readonly CoverageCase[],
  results: readonly CoverageResult[],
): RunbookCoverage[] {
  if (cases.length !== results.length)
    throw new Error(`coverage: ${cases.length} cases but ${results.length} results`);
  const byRunbook = new Map<string, { testCase: CoverageCase; result: CoverageResult }[]>();
  cases.forEach((testCase, index) => {
    const result = results[index];
    if (result === undefined) return;
    const file = caseRunbookFile(testCase);
    const runs = byRunbook.get(file) ?? [];
    runs.push({ testCase, result });
    byRunbook.set(file, runs);
  });
  return [...byRunbook.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([file, runs]) => {
      const first = runs[0];
      return first === undefined ? [] : [runbookCoverage(file, first.testCase.definition, runs)];
    });
}
