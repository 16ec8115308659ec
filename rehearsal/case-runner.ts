// Runs one test case: its own local cloud with the starting state, the run started as `tideline
// run` starts it, the scripted approvals, operator actions on holds and cancel sent as the CLI
// sends them (case-drivers.ts), and once the run has ended (or is held, when that is expected) the
// expectations checked against its report, its requests, the cloud's end state and its history.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunbookWorkflowInput, RunReport, StepRecord } from '../contract/run-messages';
import { reportInFailure } from '../contract/run-messages';
import { RUNBOOK_WORKFLOW_TYPE } from '../contract/workflow-types';
import type { AnswerObserver } from '../local-cloud/api';
import { startCaseCloud, type CaseCloud } from './case-cloud';
import { readEndState } from './case-end-state';
import {
  PROGRESS_POLL_MS,
  approvalDriver,
  driveCancel,
  holdDriver,
  progressOf,
  unusedScript,
  type HoldDriver,
} from './case-drivers';
import { resolveReferences } from './cloud-references';
import { unmetExpectations, type Mismatch } from './expectations';
import { historyText } from './history-text';
import { placeMismatch } from './mismatch-position';
import type { LoadedCase } from './test-file-loader';
import type { TestStack } from './test-stack';
import { caseWorkerFor, type CaseWorker } from './case-worker';
import {
  missedDeadline,
  missedDeadlineText,
  stepDeadlines,
  type MissedDeadline,
  type StepDeadline,
} from './step-deadlines';
import { bindInputs } from '../dsl/inputs';

/** The requests a case's run made, per operation, with their answers' statuses. */
type CaseCalls = ReturnType<CaseCloud['disarm']>['calls'];

export interface CaseResult {
  file: string;
  name: string;
  runbook: string;
  passed: boolean;
  durationMs: number;
  workflowId: string | undefined;
  mismatches: Mismatch[];
  /**
   * Why the case could not be run or finished. A case that ran out of time has the mismatches its
   * expectations found at that moment; one that could not run has none.
   */
  error?: { code: 'TEST_CASE_ERROR' | 'TEST_CASE_TIMEOUT' | 'TEST_CASE_CANCELLED'; message: string };
  /** The step whose deadline ended the case, when one did (else a timeout was the flat one). */
  missed?: MissedDeadline;
  /** The run's steps as they ended. */
  steps: StepRecord[];
  /** How the run ended and the requests it made per operation, once it ended. */
  ended?: { status: RunReport['status']; failure?: RunReport['failure']; calls: CaseCalls };
}

/**
 * The report of an ended run: its result, or the one its failure carries. A cancelled run ends
 * with the cancellation itself (after compensating), so its report is its last progress, read
 * with a query of the closed run. The worker answers that query by replaying the run's history,
 * and on a loaded machine an attempt can fail (the connection reset, the query's deadline
 * passed); it is asked again until it answers or the case is over.
 */
export async function reportOf(handle: WorkflowHandle, caseOver: () => boolean): Promise<RunReport> {
  try {
    return (await handle.result()) as RunReport;
  } catch (error) {
    const report = reportInFailure(error);
    if (report !== undefined) return report;
    for (;;) {
      const progress = await progressOf(handle);
      if (progress?.status === 'cancelled') return { ...progress, outputs: {}, secretOutputs: [] };
      if (progress !== undefined || caseOver()) throw error;
      await delay(PROGRESS_POLL_MS);
    }
  }
}

/**
 * A held run does not end: its progress is its report, once it is held at a step no scripted
 * action was taken on and every scripted action was taken (or it ends).
 */
async function heldReport(
  handle: WorkflowHandle,
  holds: HoldDriver,
  caseOver: () => boolean,
): Promise<RunReport> {
  for (;;) {
    const progress = await progressOf(handle);
    if (progress?.status === 'held' && holds.done() && (progress.held ?? []).some(holds.isNew))
      return { ...progress, outputs: {}, secretOutputs: [] };
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') return reportOf(handle, caseOver);
    await delay(PROGRESS_POLL_MS);
  }
}

/** A run that waits for a closed change window: its progress then is its report (or it ends). */
async function waitingReport(handle: WorkflowHandle, caseOver: () => boolean): Promise<RunReport> {
  for (;;) {
    const progress = await progressOf(handle);
    if (progress?.windowWait !== undefined) return { ...progress, outputs: {}, secretOutputs: [] };
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') return reportOf(handle, caseOver);
    await delay(PROGRESS_POLL_MS);
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function secretValues(
  testCase: LoadedCase,
  inputs: Record<string, unknown>,
  report: RunReport,
  cloud: CaseCloud,
): string[] {
  const values = [
    ...Object.entries(testCase.definition.inputs)
      .filter(([, spec]) => spec.secret === true)
      .map(([name]) => inputs[name]),
    ...report.secretOutputs.map((name) => report.outputs[name]),
    cloud.cloud.projects[0]?.secret_key,
  ];
  return values.filter((v): v is string => typeof v === 'string' && v.length >= 4);
}

/** When a closed run ended (epoch ms); undefined while it is still going (held, waiting, timed out). */
async function closeTimeOf(run: WorkflowHandle): Promise<number | undefined> {
  const description = await run.describe().catch(() => undefined);
  return description?.closeTime?.getTime();
}

/**
 * The case's expectations against a report and what its cloud holds: as of the run's end when it
 * ended (`endedAt`), else now.
 */
async function judge(
  testCase: LoadedCase,
  report: RunReport,
  cloud: CaseCloud,
  inputs: Record<string, unknown>,
  run: WorkflowHandle,
  { endedAt, onCalls = () => undefined }: { endedAt?: number; onCalls?: (calls: CaseCalls) => void } = {},
): Promise<Mismatch[]> {
  const { calls, sequence } = cloud.disarm(endedAt);
  onCalls(calls);
  const [endState, history] = await Promise.all([
    readEndState(cloud),
    testCase.expect.noSecretsInHistory === true ? run.fetchHistory().then(historyText) : undefined,
  ]);
  const outcome = {
    report,
    calls,
    sequence,
    ...endState,
    secrets: secretValues(testCase, inputs, report, cloud),
    ...(history !== undefined ? { history } : {}),
  };
  const expect = resolveReferences(testCase.expect, cloud.ids, inputs);
  return unmetExpectations(expect, outcome, cloud.ids).map((mismatch) =>
    placeMismatch(testCase, mismatch, 'expect'),
  );
}

/** The run's inputs with the runbook's defaults, as the run binds them (for its deadlines). */
function bound(testCase: LoadedCase, inputs: Record<string, unknown>): Record<string, unknown> {
  const binding = bindInputs(testCase.definition.inputs, inputs);
  return binding.ok ? binding.values : inputs;
}

/**
 * How often the runner checks the running steps against their deadlines: each check is a query
 * the worker answers, for as long as the case runs, and a deadline has seconds of slack
 * (STEP_DEADLINE_SLACK_MS), so a second later costs a time kill little and saves many queries.
 */
const DEADLINE_POLL_MS = 1_000;

/** Resolves once `signal` is aborted (never, without one); the listener goes when `settled` does. */
function abortOf(signal: AbortSignal | undefined, settled: Promise<unknown>): Promise<{ cancelled: true }> {
  if (signal === undefined) return new Promise(() => undefined);
  return new Promise((resolve) => {
    const onAbort = () => resolve({ cancelled: true });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void settled.finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * What ends the wait for the run: its report, a step past its deadline on the case's clock, the
 * flat case timeout (`missed` undefined), or the case's cancellation (`signal`). The deadline
 * watch stops once it has; its last query, if one is out, joins `background`.
 */
async function firstEnding(
  work: Promise<RunReport>,
  run: WorkflowHandle,
  deadlines: ReadonlyMap<string, StepDeadline>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  background: Promise<unknown>[],
): Promise<{ report: RunReport } | { missed: MissedDeadline | undefined } | { cancelled: true }> {
  const settled = new AbortController();
  const watch = async (): Promise<{ missed: MissedDeadline } | undefined> => {
    for (;;) {
      try {
        await delay(DEADLINE_POLL_MS, undefined, { signal: settled.signal });
      } catch {
        return undefined;
      }
      const missed = missedDeadline(await progressOf(run), deadlines, Date.now());
      if (missed !== undefined) return { missed };
      if (settled.signal.aborted) return undefined;
    }
  };
  const watching = deadlines.size > 0 ? watch() : undefined;
  if (watching !== undefined) background.push(watching);
  const missed = watching?.then((found) => found ?? new Promise<never>(() => undefined));
  const ended = withDeadline(
    Promise.race([work.then((report) => ({ report })), ...(missed !== undefined ? [missed] : [])]),
    timeoutMs,
  );
  try {
    const ending = await Promise.race([ended, abortOf(signal, ended)]);
    return ending === 'timeout' ? { missed: undefined } : ending;
  } finally {
    // Also when a driver threw (a scripted answer refused): the watch must not poll on.
    settled.abort();
  }
}

/** Why a cancelled case was: the abort's reason when it is an Error, else a plain note. */
function cancelText(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return `cancelled: ${reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'the case was stopped before its run ended'}`;
}

/** Why a case could not run or finish, from what was thrown. */
export function caseErrorOf(error: unknown): CaseResult['error'] {
  return { code: 'TEST_CASE_ERROR', message: error instanceof Error ? error.message : String(error) };
}

/** A case's result before it has run: not passed, nothing found yet. `runbook`: what it runs. */
export function caseResultOf(testCase: { file: string; name: string }, runbook: string): CaseResult {
  return {
    file: testCase.file,
    name: testCase.name,
    runbook,
    passed: false,
    durationMs: 0,
    workflowId: undefined,
    mismatches: [],
    steps: [],
  };
}

/**
 * Runs the case to its end or `timeoutMs`. Aborting `signal` ends it early (TEST_CASE_CANCELLED):
 * its run is terminated, its worker stopped and its cloud closed as at any other end.
 */
export async function runCase(
  stack: TestStack,
  testCase: LoadedCase,
  timeoutMs: number,
  observeAnswers?: AnswerObserver,
  signal?: AbortSignal,
): Promise<CaseResult> {
  const started = Date.now();
  const result = caseResultOf(testCase, testCase.runbook);
  let cloud: CaseCloud | undefined;
  let unroute = () => undefined as unknown;
  let handle: WorkflowHandle | undefined;
  let worker: CaseWorker | undefined;
  // Set once the run has ended or the case is over for another reason: the drivers stop then.
  let ended = false;
  // The drivers and the deadline watch: their last calls end before the worker stops, so none is
  // still out (being retried) when the caller closes the connection.
  const background: Promise<unknown>[] = [];
  const over = () => ended;
  try {
    signal?.throwIfAborted();
    cloud = await startCaseCloud(testCase, stack.credentials, observeAnswers, stack.dialect);
    unroute = stack.route(cloud.ids.projectId, cloud.api);
    const inputs = resolveReferences(testCase.inputs, cloud.ids);
    result.workflowId = `test-${testCase.definition.name}-${randomBytes(4).toString('hex')}`;
    worker = await caseWorkerFor(stack, testCase, result.workflowId);
    const input: RunbookWorkflowInput = {
      definition: testCase.definition,
      inputs,
      ...(testCase.onFailure !== undefined ? { onFailure: testCase.onFailure } : {}),
      ...(worker.startedBy !== undefined && { startedBy: worker.startedBy(testCase.definition, inputs) }),
    };
    cloud.arm();
    // A cancel that needs the run still waiting holds the cloud until it lands (driveCancel).
    if (testCase.cancel?.holdCloud) cloud.holdClock();
    const run = await stack.client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
      taskQueue: worker.taskQueue,
      workflowId: result.workflowId,
      args: [input],
      memo: { runbook: testCase.definition.name },
    });
    handle = run;
    signal?.throwIfAborted();
    const holds = holdDriver(run, testCase, cloud, over);
    const approvals = approvalDriver(run, testCase, over, {
      runId: run.firstExecutionRunId,
      keyOf: worker.keyOf,
    });
    const finished = (
      testCase.expect.status === 'held'
        ? heldReport(run, holds, over)
        : testCase.expect.status === 'waiting'
          ? waitingReport(run, over)
          : reportOf(run, over)
    ).finally(() => (ended = true));
    const drivers = [
      finished,
      approvals.drive(),
      driveCancel(run, testCase, over, cloud),
      holds.drive(),
    ] as const;
    // Each driver, not their Promise.all, which settles at the first that throws.
    background.push(...drivers);
    const work = Promise.all(drivers).then(([report]) => report);
    const deadlines = stepDeadlines(testCase.definition, bound(testCase, inputs), testCase.approvals);
    const ending = await firstEnding(work, run, deadlines, timeoutMs, signal, background);
    if ('cancelled' in ending) throw signal?.reason ?? new Error('the case was cancelled');
    if ('missed' in ending) {
      ended = true;
      if (ending.missed !== undefined) result.missed = ending.missed;
      const progress = await progressOf(run);
      result.steps = progress?.steps ?? [];
      result.error = {
        code: 'TEST_CASE_TIMEOUT',
        message:
          ending.missed !== undefined
            ? missedDeadlineText(ending.missed)
            : `the run did not ${testCase.expect.status === 'held' ? 'hold or end' : 'end'} within ${timeoutMs / 1000}s (status ${progress?.status ?? 'unknown'})`,
      };
      // What the expectations find when the time was up names what the run failed to do.
      if (progress !== undefined)
        result.mismatches = await judge(
          testCase,
          { ...progress, outputs: {}, secretOutputs: [] },
          cloud,
          inputs,
          run,
        );
      return result;
    }
    const { report } = ending;
    const endedAt = await closeTimeOf(run);
    result.steps = report.steps;
    result.mismatches = [
      ...unusedScript(testCase, holds.unused(), approvals.missed(), report.status),
      ...(await judge(testCase, report, cloud, inputs, run, {
        ...(endedAt !== undefined && { endedAt }),
        onCalls: (calls) => {
          result.ended = {
            status: report.status,
            ...(report.failure !== undefined && { failure: report.failure }),
            calls,
          };
        },
      })),
    ];
    result.passed = result.mismatches.length === 0;
    return result;
  } catch (error) {
    result.error =
      signal?.aborted === true
        ? { code: 'TEST_CASE_CANCELLED', message: cancelText(signal) }
        : caseErrorOf(error);
    // Where the run was when the case stopped (a scripted answer refused, say).
    if (handle !== undefined) result.steps = (await progressOf(handle))?.steps ?? result.steps;
    return result;
  } finally {
    ended = true;
    result.durationMs = Date.now() - started;
    // A run still going (held, timed out) must not act on after its cloud is gone.
    if (handle !== undefined) await handle.terminate('tideline test: case over').catch(() => undefined);
    await Promise.allSettled(background);
    await worker?.stop();
    unroute();
    await cloud?.close().catch(() => undefined);
  }
}
