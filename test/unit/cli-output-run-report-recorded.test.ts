// The report of a finished run from what the run recorded, not from what a watching CLI saw: how
// long it queued for its service locks (`lockWaits`, workflow time), and what its undone steps had
// created and whether compensation removed it (step records' `resources`).
import { renderOutcome, runJson } from '../../cli/output/run-report';
import { PLAIN_STYLE } from '../../cli/output/style';
import type { RunOutcome } from '../../cli/run-observer';
import { LOCK_QUEUED_MS, recordedLockWait } from '../../cli/run-watch';
import type { LockWait, RunProgress, StepRecord } from '../../contract/run-messages';

const T0 = Date.UTC(2024, 5, 1, 12, 0, 0);
const A = 'service/p1/aaa';
const B = 'service/p1/bbb';

function progress(extra: Partial<RunProgress>): RunProgress {
  return {
    runbook: 'hold-service',
    status: 'succeeded',
    startedAt: T0,
    endedAt: T0 + 40_000,
    steps: [],
    ...extra,
  };
}

function outcome(status: RunOutcome['status'], from: RunProgress): RunOutcome {
  return {
    workflowId: 'run-1',
    runId: 'r1',
    runbook: from.runbook,
    status,
    progress: from,
    outputs: {},
    secretOutputs: [],
  };
}

const report = (run: RunOutcome): string =>
  renderOutcome({ globals: { json: false } }, run, PLAIN_STYLE, false);

describe('recorded lock waits', () => {
  const waits: LockWait[] = [
    { key: A, requestedAt: T0 + 100, acquiredAt: T0 + 200 },
    { key: B, requestedAt: T0 + 200, acquiredAt: T0 + 22_200 },
  ];

  test('the waits add up, named after the longest; the report says it', () => {
    const finished = progress({ lockWaits: waits });
    const lockWait = recordedLockWait(finished);
    expect(lockWait).toEqual({ key: B, ms: 22_100 });
    expect(report({ ...outcome('succeeded', finished), ...(lockWait && { lockWait }) })).toContain(
      `hold-service succeeded in 40.0s (22.1s of it waiting for lock ${B}) (run run-1)`,
    );
  });

  test('a lock never got lasts until the run ended; a wait shorter than a queue is unsaid', () => {
    expect(
      recordedLockWait(progress({ status: 'cancelled', lockWaits: [{ key: A, requestedAt: T0 + 1_000 }] })),
    ).toEqual({ key: A, ms: 39_000 });
    const quick = [{ key: A, requestedAt: T0, acquiredAt: T0 + LOCK_QUEUED_MS - 1 }];
    expect(recordedLockWait(progress({ lockWaits: quick }))).toBeUndefined();
    expect(recordedLockWait(progress({}))).toBeUndefined();
  });

  test('--json lists them with ISO times', () => {
    const json = runJson(
      outcome('succeeded', progress({ lockWaits: [waits[1]!, { key: A, requestedAt: T0 }] })),
      false,
    );
    expect(json.lockWaits).toEqual([
      {
        key: B,
        requestedAt: new Date(T0 + 200).toISOString(),
        acquiredAt: new Date(T0 + 22_200).toISOString(),
      },
      { key: A, requestedAt: new Date(T0).toISOString(), acquiredAt: null },
    ]);
  });
});

describe('resources of undone steps in the report', () => {
  const record = (
    key: string,
    status: StepRecord['status'],
    extra: Partial<StepRecord> = {},
  ): StepRecord => ({
    key,
    id: key.replace(/^.*[./]/, ''),
    kind: 'call',
    status,
    ...extra,
  });

  test('what a compensated step created, and the undo step that deleted it', () => {
    const failed = progress({
      status: 'failed',
      steps: [
        record('create', 'compensated', {
          action: 'service.create',
          resources: [
            { type: 'service', id: 'svc1', created: true },
            { type: 'vpc', id: '42' },
          ],
        }),
        record('create/undo.delete_service', 'done', {
          compensates: 'create',
          action: 'service.delete',
          resources: [{ type: 'service', id: 'svc1' }],
        }),
        record('attach', 'failed', {
          action: 'service.attachToVpc',
          resources: [{ type: 'service', id: 'svc1' }],
        }),
      ],
    });
    const lines = report({
      ...outcome('failed', failed),
      failure: { stepKey: 'attach', type: 'CLOUD_API_NOT_FOUND', message: 'no VPC 42' },
    }).split('\n');
    const undone = lines.indexOf('  compensated (undone): create');
    expect(undone).toBeGreaterThan(0);
    expect(lines[undone + 1]).toBe(
      '    create: created service svc1 · deleted by compensation (create/undo.delete_service)',
    );
  });

  test('an undo that failed: the report names what may be left over', () => {
    const failed = progress({
      status: 'failed',
      steps: [
        record('create', 'compensation-failed', {
          resources: [{ type: 'service', id: 'svc2', created: true }],
          error: { type: 'CLOUD_API_SERVER_ERROR', message: 'HTTP 503' },
        }),
        record('create/undo.delete_service', 'failed', { compensates: 'create', action: 'service.delete' }),
      ],
    });
    expect(report(outcome('failed', failed))).toContain(
      '  compensation failed for create (created service svc2): HTTP 503 — check for leftovers',
    );
  });

  test('a step that created nothing adds no line', () => {
    const failed = progress({
      status: 'failed',
      steps: [record('resize', 'compensated', { resources: [{ type: 'service', id: 's' }] })],
    });
    const lines = report(outcome('failed', failed)).split('\n');
    expect(lines[lines.indexOf('  compensated (undone): resize') + 1]).not.toMatch(/^ {4}resize:/);
  });
});
