// Every view that prints a run's data escapes control characters (cloud/printable.ts): an input
// carrying a screen clear, a title change, a carriage return or an 8-bit CSI reaches status, the
// progress views, history, plan, approve's plan, errors, Slack text and the MCP server's text
// answers shown as visible escapes, never as the raw bytes a terminal or a chat client acts on.
import { PassThrough } from 'node:stream';
import type { CliContext } from '../../cli/context';
import { planText } from '../../cli/output/approval-plan-text';
import { printCliError } from '../../cli/output/errors';
import { heldLines } from '../../cli/output/held-view';
import { renderHistory, type RunHistoryView } from '../../cli/output/history-view';
import { renderPlanMermaid } from '../../cli/output/plan-mermaid';
import { renderPlanText } from '../../cli/output/plan-text';
import { LineProgressView, LiveProgressView } from '../../cli/output/progress-views';
import { approvalLines, renderOutcome } from '../../cli/output/run-report';
import { PLAIN_STYLE } from '../../cli/output/style';
import { buildPlan } from '../../cli/plan/build-plan';
import type { RunOutcome, RunSnapshot } from '../../cli/run-observer';
import { printable, printableDeep } from '../../cloud/printable';
import { slackMessage } from '../../activities/notify-slack';
import type { ApprovalPlan } from '../../contract/approval-messages';
import type { PendingApproval, RunProgress, StepRecord } from '../../contract/run-messages';
import { loadRunbookText } from '../../dsl/loader';
import { runStateText, waitingText } from '../../mcp/run-text';

/** A screen clear, a window title (OSC … BEL), a carriage return and an 8-bit CSI. */
const HOSTILE = 'evil\u001b[2J\u001b]0;title\u0007\r\u009b31m';

/** Control bytes a view must never print raw: C0 but the line feed, DEL and C1. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/u;

function expectClean(text: string): void {
  expect(text).not.toMatch(CONTROL);
  // The text is still there, shown as escapes.
  expect(text).toContain('evil\\u{1b}[2J\\u{1b}]0;title\\u{7}\\r\\u{9b}31m');
}

const T0 = Date.UTC(2024, 5, 1, 12, 0, 0);
const CTX = { globals: { json: false } };

const plan: ApprovalPlan = {
  definitionHash: 'a'.repeat(64),
  changes: [{ stepKey: `promote_${HOSTILE}`, action: 'service.update', with: { [HOSTILE]: HOSTILE } }],
};

const pending: PendingApproval = {
  stepKey: `ask_${HOSTILE}`,
  message: `Promote ${HOSTILE}?`,
  deadline: 0,
  default: 'reject',
  approvers: [HOSTILE, 'group:dba'],
  minApprovals: 2,
  approvedBy: [HOSTILE],
  plan,
};

const failedStep: StepRecord = {
  key: `resize_${HOSTILE}`,
  id: 'resize',
  kind: 'call',
  name: HOSTILE,
  status: 'failed',
  startedAt: T0,
  endedAt: T0 + 1_000,
  error: { type: 'CLOUD_ERROR', message: HOSTILE },
};

const progress: RunProgress = {
  runbook: `book_${HOSTILE}`,
  status: 'running',
  startedAt: T0,
  steps: [failedStep],
  pendingApproval: pending,
  waitingForLock: `service/${HOSTILE}`,
};

const snapshot: RunSnapshot = {
  workflowId: `run_${HOSTILE}`,
  runId: 'r1',
  taskQueue: 'q',
  closed: false,
  temporalStatus: 'RUNNING',
  progress,
  activities: {},
  note: HOSTILE,
};

function capture(tty: boolean): { ctx: Pick<CliContext, 'stdout' | 'globals'>; text: () => string } {
  const stdout = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdout.isTTY = tty;
  const written: string[] = [];
  stdout.on('data', (chunk: Buffer) => written.push(chunk.toString()));
  return { ctx: { stdout, globals: { json: false } }, text: () => written.join('') };
}

test('the escape is visible, idempotent, and reaches keys and nested values', () => {
  expect(printable(printable(HOSTILE))).toBe(printable(HOSTILE));
  const deep = printableDeep({ [HOSTILE]: [HOSTILE, 1, null, { inner: HOSTILE }] });
  expectClean(JSON.stringify(Object.keys(deep)).replace(/\\\\/g, '\\'));
  expect(JSON.stringify(deep)).not.toMatch(CONTROL);
});

test('status: the approval question and the commands that answer it', () => {
  const text = approvalLines(CTX, snapshot.workflowId, pending, PLAIN_STYLE, T0).join('\n');
  expectClean(text);
  expect(text).toContain(`approval needed at step ask_${printable(HOSTILE)}: Promote ${printable(HOSTILE)}?`);
});

test('status on a terminal: the redrawn frame', () => {
  const { ctx } = capture(true);
  const frame = new LiveProgressView(ctx, PLAIN_STYLE).frame(snapshot, T0 + 2_000).join('\n');
  expectClean(frame);
});

test('status in a log: the lines of each change', async () => {
  const { ctx, text } = capture(false);
  new LineProgressView(ctx, PLAIN_STYLE).update(snapshot, T0 + 2_000);
  await new Promise((resolve) => setImmediate(resolve));
  expectClean(text());
});

test('status of a held run, and the report of an ended one', () => {
  const held = heldLines(
    CTX,
    snapshot.workflowId,
    {
      ...progress,
      status: 'held',
      held: [
        {
          stepKey: failedStep.key,
          error: { type: 'X', message: HOSTILE },
          heldAt: T0,
          deadline: T0 + 60_000,
        },
      ],
      actions: [{ action: 'retry', stepKey: failedStep.key, by: HOSTILE, reason: HOSTILE, at: T0 }],
    },
    PLAIN_STYLE,
    T0,
  ).join('\n');
  expectClean(held);
  const outcome: RunOutcome = {
    workflowId: snapshot.workflowId,
    runId: 'r1',
    runbook: progress.runbook,
    status: 'succeeded',
    progress: { ...progress, status: 'succeeded', endedAt: T0 + 5_000 },
    outputs: { [HOSTILE]: HOSTILE, nested: { value: HOSTILE } },
    secretOutputs: [],
  };
  expectClean(renderOutcome(CTX, outcome, PLAIN_STYLE, false));
  const failed = renderOutcome(
    CTX,
    { ...outcome, status: 'failed', failure: { stepKey: failedStep.key, type: 'X', message: HOSTILE } },
    PLAIN_STYLE,
    false,
  );
  expectClean(failed);
});

test('history: the step table and the failure', () => {
  const view: RunHistoryView = {
    workflowId: snapshot.workflowId,
    runId: 'r1',
    runbook: progress.runbook,
    status: 'failed',
    startedAt: T0,
    endedAt: T0 + 2_000,
    failure: { stepKey: failedStep.key, type: 'X', message: HOSTILE },
    timeline: { steps: [{ ...failedStep }], otherActivities: [] },
    events: 12,
    actions: [],
    approvals: [],
  };
  expectClean(renderHistory(view, PLAIN_STYLE, T0 + 3_000).join('\n'));
});

test('plan: inputs and the requests they resolve into, as text and as a graph', () => {
  const definition = loadRunbookText(
    `
apiVersion: tideline/v1
name: escape-plan
description: An input that carries escapes.
inputs:
  project_id: { type: string }
  note: { type: string }
steps:
  - id: ask
    approve: 'Go with \${{ inputs.note }}?'
  - id: stop
    call: service.stop
    with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ inputs.note }}' }
outputs:
  said: '\${{ inputs.note }}'
`,
    'escape-plan.yaml',
  );
  const built = buildPlan(
    definition,
    'escape-plan.yaml',
    { project_id: HOSTILE, note: HOSTILE },
    new Set(),
    new Set(['project_id', 'note']),
  );
  expectClean(renderPlanText(built, PLAIN_STYLE));
  expect(renderPlanMermaid(built)).not.toMatch(CONTROL);
});

test('approve: the plan the approver reads, with its fingerprint', () => {
  const text = planText(pending.stepKey, plan);
  expectClean(text);
  expect(text).toMatch(/plan fingerprint: [0-9a-f]{16}\n$/);
});

test('errors on stderr keep their own line breaks and escape the rest', async () => {
  const stderr = new PassThrough();
  const written: string[] = [];
  stderr.on('data', (chunk: Buffer) => written.push(chunk.toString()));
  const ctx = { ...CTX, stdout: new PassThrough(), stderr } as unknown as CliContext;
  printCliError(ctx, { code: 'X', message: `refused: ${HOSTILE}`, hint: HOSTILE, details: [HOSTILE] });
  await new Promise((resolve) => setImmediate(resolve));
  expectClean(written.join(''));
  expect(written.join('').split('\n')).toHaveLength(4);
});

test('notifications: the Slack text', () => {
  const { text } = slackMessage({
    id: 'n1',
    event: 'awaiting-approval',
    runbook: progress.runbook,
    workflowId: snapshot.workflowId,
    runId: 'r1',
    namespace: 'default',
    at: new Date(T0).toISOString(),
    step: pending.stepKey,
    message: pending.message,
    commands: { approve: `tideline approve ${snapshot.workflowId}` },
  });
  expectClean(text);
});

test("MCP: a run's state and the runs waiting for approval, as text", () => {
  const state = runStateText({
    runId: snapshot.workflowId,
    runbook: progress.runbook,
    execution: 'RUNNING',
    status: 'running',
    steps: [{ key: failedStep.key, status: 'failed', error: HOSTILE }],
    pendingApproval: pending,
    failure: { stepKey: failedStep.key, type: 'X', message: HOSTILE },
    outputs: { [HOSTILE]: HOSTILE },
    startedBy: HOSTILE,
  });
  expectClean(state);
  expect(state).toContain('--plan FINGERPRINT');
  expectClean(waitingText([{ runId: snapshot.workflowId, runbook: progress.runbook, approval: pending }]));
});
