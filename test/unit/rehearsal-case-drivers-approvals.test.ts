// The scripted approvals of a test case against a stand-in run (a fake handle): an answer due after
// its approval timed out is really sent while the run goes on (the run is what refuses it), and a
// scripted approval the run never asked for is a mismatch at its line and column.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApprovalDecision, PendingApproval, RunProgress } from '../../contract/run-messages';
import { approvalDriver, unusedScript } from '../../rehearsal/case-drivers';
import { loadTestFile, type LoadedCase } from '../../rehearsal/test-file-loader';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-approvals-'));
  const runbook = path.join(__dirname, '..', '..', 'runbooks', 'fork-and-promote.yaml');
  writeFileSync(path.join(dir, 'fork-and-promote.yaml'), readFileSync(runbook, 'utf8'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function caseWith(approval: string): LoadedCase {
  const file = path.join(dir, 'approvals.test.yaml');
  writeFileSync(
    file,
    [
      'cases:',
      '  - name: forks',
      '    runbook: fork-and-promote.yaml',
      '    inputs: { project_id: p, service_id: s, require_approval: true }',
      '    approvals:',
      `      - ${approval}`,
      '    expect:',
      '      status: failed',
    ].join('\n'),
  );
  const loaded = loadTestFile(file, (absolute) => path.basename(absolute));
  if (!loaded.ok || loaded.cases[0] === undefined) throw new Error(JSON.stringify(loaded));
  return loaded.cases[0];
}

/**
 * A run that shows its approval pending to the first `pendingFor` progress queries, then has
 * timed it out and goes on (compensating); it refuses a decision once nothing is pending.
 */
function fakeRun(pendingFor: number) {
  const sent: { decision: ApprovalDecision; pending: boolean }[] = [];
  let queries = 0;
  const pendingNow = () => queries <= pendingFor;
  const approval: PendingApproval = {
    stepKey: 'approval',
    message: 'Promote?',
    deadline: 0,
    default: 'reject',
  };
  const handle = {
    workflowId: 'wf',
    query: async (): Promise<RunProgress> => {
      queries++;
      return {
        runbook: 'fork-and-promote',
        status: pendingNow() ? 'running' : 'compensating',
        startedAt: 0,
        steps: [],
        ...(pendingNow() && { pendingApproval: approval }),
      };
    },
    executeUpdate: async (_update: unknown, options: { args: [ApprovalDecision] }) => {
      queries++;
      const pending = pendingNow();
      sent.push({ decision: options.args[0], pending });
      if (!pending) throw new Error('no approval is pending in this run');
      return undefined;
    },
  } as unknown as WorkflowHandle;
  return { handle, sent, queries: () => queries };
}

const signer = { runId: 'r', keyOf: () => undefined };

it('sends an answer due after its approval timed out, and takes the refusal as meant', async () => {
  const testCase = caseWith('{ step: approval, decision: approve, after: 50ms }');
  const run = fakeRun(1);
  const driver = approvalDriver(run.handle, testCase, () => false, signer);
  await driver.drive();
  expect(run.sent).toEqual([
    { decision: expect.objectContaining({ step: 'approval', approved: true }), pending: false },
  ]);
  expect(driver.missed()).toEqual([]);
});

it('sends an answer in time and counts it', async () => {
  const testCase = caseWith('{ step: approval, decision: reject }');
  const run = fakeRun(Infinity);
  const driver = approvalDriver(run.handle, testCase, () => false, signer);
  await driver.drive();
  expect(run.sent).toEqual([{ decision: expect.objectContaining({ approved: false }), pending: true }]);
});

it('counts a scripted approval the run never asked for as a mismatch at its place', async () => {
  const testCase = caseWith('{ step: approval, decision: approve }');
  const run = fakeRun(0);
  const driver = approvalDriver(run.handle, testCase, () => run.queries() >= 3, signer);
  await driver.drive();
  expect(run.sent).toEqual([]);
  expect(driver.missed()).toEqual([{ index: 0, reason: 'never-asked' }]);
  expect(unusedScript(testCase, [], driver.missed(), 'succeeded')).toEqual([
    {
      what: 'approvals[0]',
      expected: 'the approval of approval asked and answered',
      actual: 'the run ended succeeded without asking for it',
      at: { line: 6, column: 9 },
    },
  ]);
});

it('counts an answer the run ended before as a mismatch', async () => {
  const testCase = caseWith('{ step: approval, decision: approve, after: 50ms }');
  const run = fakeRun(Infinity);
  // The run ends once the approval was asked, while the answer waits for its time.
  const driver = approvalDriver(run.handle, testCase, () => run.queries() >= 1, signer);
  await driver.drive();
  expect(run.sent).toEqual([]);
  expect(driver.missed()).toEqual([{ index: 0, reason: 'ended-before-answer' }]);
});

it('stops at a decision the run refuses, saying why and who the step counts', async () => {
  const testCase = caseWith('{ step: approval, decision: approve, by: dave }');
  const run = fakeRun(Infinity);
  const refusing = {
    ...run.handle,
    workflowId: 'wf',
    query: async (): Promise<RunProgress> => ({
      runbook: 'fork-and-promote',
      status: 'running',
      startedAt: 0,
      steps: [],
      pendingApproval: {
        stepKey: 'approval',
        message: 'Promote?',
        deadline: 0,
        default: 'reject',
        approvers: ['group:dba'],
        minApprovals: 1,
      },
    }),
    executeUpdate: async () => ({
      approved: true,
      by: 'dave',
      comment: null,
      timedOut: false,
      refused: { code: 'APPROVAL_UNSIGNED', reason: 'this step needs a signed decision' },
    }),
  } as unknown as WorkflowHandle;
  const driver = approvalDriver(refusing, testCase, () => false, signer);
  await expect(driver.drive()).rejects.toThrow(
    "approvals[0]: the run refused dave's approval of approval: this step needs a signed decision (APPROVAL_UNSIGNED); a decision on this step counts only signed by one of its approvers (group:dba), whom the case's worker knows: e.g. people: { dave: { groups: [dba] } } and by: dave",
  );
  expect(driver.missed()).toEqual([{ index: 0, reason: 'ended-before-answer' }]);
});
