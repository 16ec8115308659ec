// Rendering of runs: the live view redrawn in place on a terminal, plain lines elsewhere, the
// final report with secrets masked, and the JSON shape.
import { PassThrough } from 'node:stream';
import type { CliContext } from '../../cli/context';
import { LineProgressView, LiveProgressView } from '../../cli/output/progress-views';
import { renderOutcome, runJson } from '../../cli/output/run-report';
import { stepDetail } from '../../cli/output/step-view';
import { formatDuration, PLAIN_STYLE, truncate } from '../../cli/output/style';
import type { RunOutcome, RunSnapshot } from '../../cli/run-observer';
import type { RunProgress, StepRecord } from '../../contract/run-messages';

const T0 = Date.UTC(2024, 5, 1, 12, 0, 0);

function terminal(columns?: number): { ctx: Pick<CliContext, 'stdout' | 'globals'>; written: string[] } {
  const stdout = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stdout.isTTY = true;
  if (columns !== undefined) stdout.columns = columns;
  const written: string[] = [];
  stdout.on('data', (chunk: Buffer) => written.push(chunk.toString()));
  return { ctx: { stdout, globals: { json: false, address: 'h:1' } }, written };
}

function progress(steps: StepRecord[], extra: Partial<RunProgress> = {}): RunProgress {
  return { runbook: 'demo', status: 'running', startedAt: T0, steps, ...extra };
}

function snapshot(p: RunProgress, activities: RunSnapshot['activities'] = {}): RunSnapshot {
  return {
    workflowId: 'demo-abc123',
    runId: 'r1',
    taskQueue: 'q',
    closed: false,
    temporalStatus: 'RUNNING',
    progress: p,
    activities,
  };
}

const created: StepRecord = {
  key: 'create',
  id: 'create',
  kind: 'call',
  status: 'done',
  startedAt: T0,
  endedAt: T0 + 1200,
  name: 'Create it',
};
const waiting: StepRecord = {
  key: 'ready',
  id: 'ready',
  kind: 'wait',
  status: 'running',
  startedAt: T0 + 1200,
  waitingFor: "service.get: result.status == 'READY'",
};
const later: StepRecord = { key: 'prod', id: 'prod', kind: 'call', status: 'pending' };

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('live view (terminal)', () => {
  test('draws the step list, then redraws it in place', async () => {
    const { ctx, written } = terminal(160);
    const view = new LiveProgressView(ctx, PLAIN_STYLE);
    view.update(
      snapshot(progress([created, waiting, later]), {
        ready: { attempt: 1, polls: 3, lastStatus: 'CONFIGURING' },
      }),
      T0 + 5000,
    );
    view.update(
      snapshot(progress([created, { ...waiting, status: 'done', endedAt: T0 + 6000 }, later])),
      T0 + 6500,
    );
    await flush();
    const [first, second] = written;
    const firstLines = (first ?? '').trimEnd().split('\n');
    expect(firstLines).toHaveLength(4);
    expect(firstLines[0]).toMatch(/^\S demo · running · 5\.0s · run demo-abc123$/);
    expect(firstLines[1]).toMatch(/^ {2}✓ create +done +1\.2s {2}Create it$/);
    expect(firstLines[2]).toBe(
      "  ▸ ready             running                3.8s  last seen CONFIGURING · 3 polls · waiting for service.get: result.status == 'READY'",
    );
    expect(firstLines[3]).toMatch(/^ {2}· prod +pending$/);
    // Cursor back up over the 4 lines drawn, clear, draw again.
    expect(second?.startsWith('\r\u001b[4A\u001b[J')).toBe(true);
    expect(second).toMatch(/✓ ready +done +4\.8s/);
  });

  test('never writes a line wider than the terminal', async () => {
    const { ctx, written } = terminal(40);
    new LiveProgressView(ctx, PLAIN_STYLE).update(snapshot(progress([created, waiting])), T0 + 5000);
    await flush();
    for (const line of (written[0] ?? '').trimEnd().split('\n'))
      expect([...line].length).toBeLessThanOrEqual(39);
  });

  test('shows a pending approval with the exact commands', async () => {
    const { ctx, written } = terminal(200);
    const gate: StepRecord = { key: 'gate', id: 'gate', kind: 'approve', status: 'running', startedAt: T0 };
    const pending = {
      stepKey: 'gate',
      message: 'Promote?',
      deadline: T0 + 120_000,
      default: 'reject' as const,
    };
    new LiveProgressView(ctx, PLAIN_STYLE).update(
      snapshot(progress([gate], { pendingApproval: pending })),
      T0 + 60_000,
    );
    await flush();
    expect(written[0]).toContain('⏸ approval needed at step gate: Promote? (rejects automatically in 1m00s)');
    expect(written[0]).toContain('approve: tideline approve demo-abc123 --step gate --address h:1');
    expect(written[0]).toContain('reject:  tideline reject demo-abc123 --step gate --address h:1');
  });
});

describe('plain lines (not a terminal)', () => {
  test('one line per change, in the order things happened, nothing repeated', async () => {
    const { ctx, written } = terminal();
    const view = new LineProgressView(ctx, PLAIN_STYLE);
    const failed: StepRecord = {
      key: 'boom',
      id: 'boom',
      kind: 'fail',
      status: 'failed',
      startedAt: T0 + 1300,
      endedAt: T0 + 1300,
      error: { type: 'RUNBOOK_FAILED_STEP', message: 'no' },
    };
    const undo: StepRecord = {
      key: 'create/undo.delete',
      id: 'delete',
      kind: 'call',
      status: 'running',
      startedAt: T0 + 1400,
      compensates: 'create',
    };
    view.update(snapshot(progress([created, failed, undo])), T0 + 1500);
    view.update(snapshot(progress([created, failed, undo])), T0 + 2000);
    view.update(
      snapshot(progress([created, failed, { ...undo, status: 'done', endedAt: T0 + 2500 }])),
      T0 + 3000,
    );
    await flush();
    const lines = written
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => line.replace(/^\d\d:\d\d:\d\d /, ''));
    expect(lines).toEqual([
      'create done in 1.2s',
      'boom failed in 0ms · RUNBOOK_FAILED_STEP: no',
      'create/undo.delete running',
      'create/undo.delete done in 1.1s',
    ]);
  });

  test('a running step names itself and says what a wait waits for', async () => {
    const { ctx, written } = terminal();
    const view = new LineProgressView(ctx, PLAIN_STYLE);
    const named = { ...waiting, name: 'Wait until READY' };
    view.update(
      snapshot(progress([named]), { ready: { attempt: 1, polls: 2, lastStatus: 'QUEUED' } }),
      T0 + 2000,
    );
    view.update(snapshot(progress([{ ...named, status: 'done', endedAt: T0 + 4700 }])), T0 + 5000);
    await flush();
    expect(
      written
        .join('')
        .trimEnd()
        .split('\n')
        .map((line) => line.replace(/^\d\d:\d\d:\d\d /, '')),
    ).toEqual([
      "ready running (Wait until READY) · last seen QUEUED · 2 polls · waiting for service.get: result.status == 'READY'",
      'ready done in 3.5s',
    ]);
  });

  test('a wait gets a new line when the status it sees changes', async () => {
    const { ctx, written } = terminal();
    const view = new LineProgressView(ctx, PLAIN_STYLE);
    view.update(
      snapshot(progress([waiting]), { ready: { attempt: 1, polls: 1, lastStatus: 'QUEUED' } }),
      T0 + 2000,
    );
    view.update(
      snapshot(progress([waiting]), { ready: { attempt: 1, polls: 2, lastStatus: 'QUEUED' } }),
      T0 + 3000,
    );
    view.update(
      snapshot(progress([waiting]), { ready: { attempt: 1, polls: 3, lastStatus: 'CONFIGURING' } }),
      T0 + 4000,
    );
    await flush();
    const lines = written.join('').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('last seen CONFIGURING · 3 polls');
  });
});

test('a retried call shows its attempt and last failure', () => {
  const call: StepRecord = { key: 'create', id: 'create', kind: 'call', status: 'running', startedAt: T0 };
  expect(stepDetail(call, { attempt: 3, lastFailure: 'HTTP 503' })).toBe('attempt 3 (last: HTTP 503)');
  expect(stepDetail(call, { attempt: 1 })).toBe('');
});

test('a running child runbook shows its run, to follow with `tideline status`', () => {
  const nested: StepRecord = {
    key: 'nested',
    id: 'nested',
    kind: 'runbook',
    status: 'running',
    startedAt: T0,
  };
  expect(stepDetail(nested, undefined, 'demo-abc123/nested')).toBe('child run demo-abc123/nested');
  expect(stepDetail({ ...nested, status: 'done', endedAt: T0 + 1 }, undefined, 'demo-abc123/nested')).toBe(
    '',
  );
});

describe('the report', () => {
  const outcome: RunOutcome = {
    workflowId: 'demo-abc123',
    runId: 'r1',
    runbook: 'demo',
    status: 'succeeded',
    progress: progress([created], { status: 'succeeded', endedAt: T0 + 4200 }),
    outputs: { service_id: 'svc-1', password: 'hunter2-secret' },
    secretOutputs: ['password'],
  };

  test('masks secret outputs unless asked to show them', () => {
    const text = renderOutcome({ globals: { json: false } }, outcome, PLAIN_STYLE, false);
    expect(text).toBe(
      '✓ demo succeeded in 4.2s (run demo-abc123)\noutputs:\n  service_id  svc-1\n  password    ••••••  (secret: --show-secrets shows it)\n',
    );
    expect(renderOutcome({ globals: { json: false } }, outcome, PLAIN_STYLE, true)).toContain(
      'password    hunter2-secret\n',
    );
    expect(JSON.stringify(runJson(outcome, false))).not.toContain('hunter2');
    expect(runJson(outcome, true).outputs).toEqual({ service_id: 'svc-1', password: 'hunter2-secret' });
  });

  test('a failure names the step and reason, what was undone and what was not', () => {
    const failedOutcome: RunOutcome = {
      ...outcome,
      status: 'failed',
      outputs: {},
      progress: progress(
        [
          { ...created, status: 'compensated' },
          {
            key: 'vpc',
            id: 'vpc',
            kind: 'call',
            status: 'compensation-failed',
            error: { type: 'X', message: 'gone wrong' },
          },
        ],
        { status: 'failed', endedAt: T0 + 3000 },
      ),
      failure: { stepKey: 'attach', type: 'CLOUD_API_NOT_FOUND', message: 'no such VPC' },
    };
    const text = renderOutcome(
      { globals: { json: false, address: 'h:1' } },
      failedOutcome,
      PLAIN_STYLE,
      false,
    );
    expect(text.split('\n')).toEqual([
      '✗ demo failed in 3.0s (run demo-abc123)',
      '  step attach: CLOUD_API_NOT_FOUND: no such VPC',
      '  compensated (undone): create',
      '  compensation failed for vpc: gone wrong — check for leftovers',
      '  timeline: tideline history demo-abc123 --address h:1',
      '',
    ]);
  });

  test('notifications: how many went out, and each that did not with its reason', () => {
    const notified: RunOutcome = {
      ...outcome,
      progress: progress([created], {
        status: 'succeeded',
        endedAt: T0 + 4200,
        notifications: {
          delivered: 3,
          failed: [{ event: 'held', target: 'pager', error: 'notification target pager: HTTP 500' }],
        },
      }),
    };
    const lines = renderOutcome({ globals: { json: false } }, notified, PLAIN_STYLE, false).split('\n');
    expect(lines).toContain('  notifications: 3 delivered, 1 failed');
    expect(lines).toContain('    held → pager: notification target pager: HTTP 500');
    expect(runJson(notified, false).notifications).toEqual(notified.progress?.notifications);
    expect(renderOutcome({ globals: { json: false } }, outcome, PLAIN_STYLE, false)).not.toContain(
      'notifications',
    );
  });
});

test('formatting helpers', () => {
  expect([850, 4_200, 185_000, 3_780_000].map(formatDuration)).toEqual(['850ms', '4.2s', '3m05s', '1h03m']);
  expect(truncate('abcdefghij', 5)).toBe('abcd…');
  expect(truncate('\u001b[1mabcdefghij\u001b[22m', 5)).toBe('\u001b[1mabcd…\u001b[0m');
});
