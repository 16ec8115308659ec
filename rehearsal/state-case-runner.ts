// Runs one state case: its own local cloud with the starting state, the drift check of
// `tideline drift` on it (its findings compared with the case's, exactly), and with `reconcile:
// true` what `tideline reconcile` does — the repair plan of state/, each repair an ordinary run on
// the case's worker, watched by stack/repair-runs.ts — then the check again and the case's
// `expect`: the findings after, the requests the repair runs made and what the cloud holds.
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { assertNever } from '../cloud/assert-never';
import { RUNBOOK_WORKFLOW_TYPE } from '../contract/workflow-types';
import type { JsonValue } from '../dsl/expressions';
import type { AnswerObserver } from '../local-cloud/api';
import { runRepairs, type RepairOutcome, type RepairRun } from '../stack/repair-runs';
import { checkDrift, type DriftReport, type ServiceLister } from '../state/drift-check';
import { planRepairs } from '../state/repair-plan';
import { startCaseCloud, type CaseCloud } from './case-cloud';
import { PROGRESS_POLL_MS, progressOf } from './case-drivers';
import { readEndState } from './case-end-state';
import { caseErrorOf, caseResultOf, reportOf, type CaseResult } from './case-runner';
import { resolveReferences } from './cloud-references';
import { callMismatches, cloudMismatches, type Mismatch } from './expectations';
import { placeMismatch } from './mismatch-position';
import type { LoadedStateCase } from './state-case-loader';
import type { ExpectedFinding } from './test-file-schema';
import type { TestStack } from './test-stack';

const findingText = (finding: ExpectedFinding) => `${finding.service} breaks ${finding.rule}`;

/**
 * The findings of a report against those a case lists at `path`: each listed one not found at its
 * entry, each found one not listed at the list.
 */
export function findingMismatches(
  testCase: Pick<LoadedStateCase, 'locate'>,
  path: readonly string[],
  expected: readonly ExpectedFinding[],
  report: DriftReport,
): Mismatch[] {
  const label = path.join('.');
  const found = report.findings.map((finding) => ({
    text: findingText({ service: finding.service.name, rule: finding.rule }),
    severity: finding.severity,
  }));
  const listed = expected.map(findingText);
  const mismatches: Mismatch[] = [];
  listed.forEach((text, index) => {
    if (!found.some((finding) => finding.text === text))
      mismatches.push({
        what: `${label}[${index}]`,
        expected: text,
        actual: 'not found',
        at: testCase.locate([...path, index]),
      });
  });
  for (const finding of found)
    if (!listed.includes(finding.text))
      mismatches.push({
        what: label,
        expected: 'not listed',
        actual: `${finding.text} [${finding.severity}]`,
        at: testCase.locate(path),
      });
  return mismatches;
}

function outcomeText(outcome: RepairOutcome): string {
  switch (outcome.kind) {
    case 'repaired':
      return 'succeeded';
    case 'refused':
      return `refused by the worker${outcome.stepKey !== undefined ? ` at step ${outcome.stepKey}` : ''} [${outcome.code}]: ${outcome.reason}`;
    case 'failed':
      return `${outcome.status}${outcome.stepKey !== undefined ? ` at step ${outcome.stepKey}` : ''} [${outcome.code}]: ${outcome.reason}`;
    case 'awaiting-approval':
      return `waiting for approval at step ${outcome.approval.stepKey}`;
    case 'awaiting-window':
      return `waiting for a change window (${outcome.rule}) until ${new Date(outcome.until).toISOString()}`;
    case 'held':
      return `held at step ${outcome.stepKey}: ${outcome.reason}`;
    case 'not-started':
      return `not started [${outcome.code}]: ${outcome.reason}`;
    case 'detached':
      return 'still running when the case ran out of time';
    default:
      return assertNever(outcome);
  }
}

/** Each repair run that did not succeed, at the case's `reconcile`. */
function repairMismatches(testCase: LoadedStateCase, runs: readonly RepairRun[]): Mismatch[] {
  return runs
    .filter((run) => run.outcome.kind !== 'repaired')
    .map((run) => ({
      what: 'reconcile',
      expected: `${run.repair.runbook} for ${run.repair.service.name} succeeds`,
      actual: `run ${run.workflowId}: ${outcomeText(run.outcome)}`,
      at: testCase.locate(['reconcile']),
    }));
}

/** The repairs of the drift found, run as `tideline reconcile` runs them, on the case's worker. */
async function reconcile(
  stack: TestStack,
  testCase: LoadedStateCase,
  before: DriftReport,
  services: readonly JsonValue[],
  runsGoneBy: Promise<void>,
  started: WorkflowHandle[],
): Promise<RepairRun[] | { problems: string[] }> {
  const plan = planRepairs(testCase.loadedState, before, services);
  if (plan.problems.length > 0)
    return {
      problems: plan.problems.map(
        (problem) => `${problem.runbook} for ${problem.service.name}: ${problem.message} [${problem.code}]`,
      ),
    };
  const worker =
    testCase.governance !== undefined
      ? await stack.caseWorker({ governance: testCase.governance })
      : { taskQueue: stack.taskQueue, stop: async () => undefined };
  try {
    return await runRepairs(
      plan.repairs,
      {
        prepare: (repair) => {
          const workflowId = `test-${repair.definition.name}-${repair.service.name}-${randomBytes(4).toString('hex')}`;
          const start = async () => {
            const handle = await stack.client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
              taskQueue: worker.taskQueue,
              workflowId,
              args: [{ definition: repair.definition, inputs: repair.inputs }],
              memo: { runbook: repair.definition.name },
            });
            started.push(handle);
            return handle;
          };
          return { workflowId, start };
        },
        notStarted: () => undefined,
        observe: async (handle) => {
          const [description, progress] = await Promise.all([handle.describe(), progressOf(handle)]);
          return {
            closed: description.status.name !== 'RUNNING',
            ...(progress !== undefined && { progress }),
          };
        },
        ended: async (handle) => {
          let over = false;
          void runsGoneBy.then(() => (over = true));
          const report = await reportOf(handle, () => over);
          return { status: report.status, ...(report.failure !== undefined && { failure: report.failure }) };
        },
        interrupted: runsGoneBy,
        pollMs: PROGRESS_POLL_MS,
      },
      { onStarted: () => undefined, onEnded: () => undefined },
    );
  } finally {
    await worker.stop();
  }
}

export async function runStateCase(
  stack: TestStack,
  testCase: LoadedStateCase,
  timeoutMs: number,
  observeAnswers?: AnswerObserver,
): Promise<CaseResult> {
  const startedAt = Date.now();
  const result = caseResultOf(testCase, testCase.state);
  let cloud: CaseCloud | undefined;
  let unroute = () => undefined as unknown;
  const started: WorkflowHandle[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  try {
    const caseCloud = await startCaseCloud(
      { cloud: testCase.cloud, faults: [] },
      stack.credentials,
      observeAnswers,
      stack.dialect,
    );
    cloud = caseCloud;
    const projectId = caseCloud.ids.projectId;
    unroute = stack.route(projectId, caseCloud.api);
    // As `tideline drift` reads them: the API's answer as plain JSON.
    const lister: ServiceLister = async (project) =>
      JSON.parse(
        JSON.stringify(await caseCloud.api.call('service.list', { project_id: project })),
      ) as JsonValue[];
    const services = await lister(projectId);
    const state = testCase.loadedState;
    const before = await checkDrift(state, projectId, () => Promise.resolve(services));
    result.mismatches = findingMismatches(testCase, ['findings'], testCase.findings, before);
    const expect = testCase.expect;
    if (!testCase.reconcile || expect === undefined) {
      result.passed = result.mismatches.length === 0;
      return result;
    }
    caseCloud.arm();
    const runs = await reconcile(stack, testCase, before, services, timedOut, started);
    if (!Array.isArray(runs)) {
      result.error = {
        code: 'TEST_CASE_ERROR',
        message: `the repairs cannot start: ${runs.problems.join('; ')}`,
      };
      return result;
    }
    result.workflowId = runs.map((run) => run.workflowId).join(', ') || undefined;
    if (runs.some((run) => run.outcome.kind === 'detached'))
      result.error = {
        code: 'TEST_CASE_TIMEOUT',
        message: `the repair runs did not end within ${timeoutMs / 1000}s`,
      };
    const { calls } = caseCloud.disarm();
    const after = await checkDrift(state, projectId, lister);
    const ids = caseCloud.ids;
    result.mismatches.push(
      ...repairMismatches(testCase, runs),
      ...findingMismatches(testCase, ['expect', 'findings'], expect.findings, after),
      ...[
        ...callMismatches(expect.calls, calls),
        ...cloudMismatches(resolveReferences(expect.cloud, ids), await readEndState(caseCloud), ids),
      ].map((mismatch) => placeMismatch(testCase, mismatch, 'expect')),
    );
    result.passed = result.error === undefined && result.mismatches.length === 0;
    return result;
  } catch (error) {
    result.error = caseErrorOf(error);
    return result;
  } finally {
    clearTimeout(timer);
    result.durationMs = Date.now() - startedAt;
    // A repair run still going must not act on after its cloud is gone.
    for (const handle of started) await handle.terminate('tideline test: case over').catch(() => undefined);
    unroute();
    await cloud?.close().catch(() => undefined);
  }
}
