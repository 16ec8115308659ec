// The CLI view tells the whole truth: what a run waits for (a service lock), what a
// wait last saw (before the condition, which is what a narrow terminal cuts), rows that do not
// shift when a run compensates, errors read whole, `not run` for steps a finished run never
// reached, no spinner left behind, and piped logs stamped with the time of each change.
import { PassThrough } from 'node:stream';
import type { CliContext } from '../../cli/context';
import { LineProgressView, LiveProgressView } from '../../cli/output/progress-views';
import { renderOutcome, runJson } from '../../cli/output/run-report';
import { formatClock, PLAIN_STYLE } from '../../cli/output/style';
import type { ActivityState, RunOutcome, RunSnapshot } from '../../cli/run-observer';
import { lockWaitOf, trackActivities } from '../../cli/run-watch';
import type { RunProgress, StepRecord } from '../../contract/run-messages';

const T0 = Date.UTC(2024, 5, 1, 12, 0, 0);
const LOCK = 'service/d92kya06c0/dcyz3g6dnh';

function output(
  tty: boolean,
  columns?: number,
): { ctx: Pick<CliContext, 'stdout' | 'globals'>; text: () => string } {
  const stdout = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stdout.isTTY = tty;
  if (columns !== undefined) stdout.columns = columns;
  const written: string[] = [];
  stdout.on('data', (chunk: Buffer) => written.push(chunk.toString()));
  return { ctx: { stdout, globals: { json: false } }, text: () => written.join('') };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function snap(
  steps: StepRecord[],
  extra: Partial<RunProgress> = {},
  activities: Record<string, ActivityState> = {},
): RunSnapshot {
  return {
    workflowId: 'provision-production-service-7237fe',
    runId: 'r1',
    taskQueue: 'q',
    closed: false,
    temporalStatus: 'RUNNING',
    progress: { runbook: 'provision-production-service', status: 'running', startedAt: T0, steps, ...extra },
    activities,
  };
}

const step = (key: string, status: StepRecord['status'], extra: Partial<StepRecord> = {}): StepRecord => ({
  key,
  id: key.replace(/^.*[./]/, ''),
  kind: 'call',
  status,
  ...extra,
});

const ready = step('ready', 'running', {
  kind: 'wait',
  startedAt: T0 + 1_000,
  waitingFor:
    "service.get: result.status == 'READY' && size(result.endpoints) > 0 && result.metadata.environment == 'PROD'",
});

/** The lines of a live frame drawn at `columns`, without the cursor movements. */
async function liveLines(columns: number, ...frames: [RunSnapshot, number][]): Promise<string[]> {
  const { ctx, text } = output(true, columns);
  const view = new LiveProgressView(ctx, PLAIN_STYLE);
  for (const [snapshot, now] of frames) view.update(snapshot, now);
  await flush();
  const last = text().split('\u001b[J').pop() ?? '';
  return last.trimEnd().split('\n');
}

async function pipedLines(...frames: [RunSnapshot, number][]): Promise<string[]> {
  const { ctx, text } = output(false);
  const view = new LineProgressView(ctx, PLAIN_STYLE);
  for (const [snapshot, now] of frames) view.update(snapshot, now);
  await flush();
  return text().trimEnd().split('\n');
}

describe('a run queued on another run’s service lock', () => {
  const queued = snap([step('create', 'pending'), step('ready', 'pending', { kind: 'wait' })], {
    waitingForLock: LOCK,
  });

  test('says so on the header line at 120 columns', async () => {
    const [header] = await liveLines(120, [queued, T0 + 22_000]);
    // The lock is said in full; at 120 columns the run id, said last, is what gets cut.
    expect(header).toMatch(/^\S provision-production-service · running · 22\.0s · waiting for lock /);
    expect([...(header ?? '')].length).toBeLessThanOrEqual(119);
    expect(header).toContain(`waiting for lock ${LOCK}`);
  });

  test('piped: one line when it starts waiting and one when it has the lock', async () => {
    const lines = await pipedLines(
      [queued, T0 + 1_000],
      [queued, T0 + 2_000],
      [snap([step('create', 'running', { startedAt: T0 + 22_000 })]), T0 + 22_500],
    );
    expect(lines).toEqual([
      `${formatClock(T0 + 1_000)} waiting for lock ${LOCK}`,
      `${formatClock(T0 + 22_000)} lock ${LOCK} acquired`,
      `${formatClock(T0 + 22_000)} create running`,
    ]);
  });

  test('piped: a run next seen ended says when it got the lock, as it recorded it', async () => {
    const waits = [{ key: LOCK, requestedAt: T0, acquiredAt: T0 + 21_000 }];
    const lines = await pipedLines(
      [
        { ...queued, progress: { ...queued.progress!, lockWaits: [{ key: LOCK, requestedAt: T0 }] } },
        T0 + 1_000,
      ],
      [
        snap([step('create', 'done', { startedAt: T0 + 22_000, endedAt: T0 + 23_000 })], {
          status: 'succeeded',
          endedAt: T0 + 24_000,
          lockWaits: waits,
        }),
        T0 + 25_000,
      ],
    );
    expect(lines).toEqual([
      `${formatClock(T0 + 1_000)} waiting for lock ${LOCK}`,
      `${formatClock(T0 + 21_000)} lock ${LOCK} acquired`,
      `${formatClock(T0 + 23_000)} create done in 1.0s`,
    ]);
  });

  test('piped: a run cancelled while queued never says it got the lock', async () => {
    const lines = await pipedLines(
      [queued, T0 + 1_000],
      [
        snap([step('create', 'pending'), step('ready', 'pending', { kind: 'wait' })], {
          status: 'cancelled',
          endedAt: T0 + 9_000,
          lockWaits: [{ key: LOCK, requestedAt: T0 }],
        }),
        T0 + 9_500,
      ],
    );
    expect(lines.join('\n')).not.toContain('acquired');
    expect(lines[0]).toBe(`${formatClock(T0 + 1_000)} waiting for lock ${LOCK}`);
  });

  test('piped: a step that waited for a change window goes on without a lock line', async () => {
    const windowWait = { stepKey: 'create', rule: 'freeze', calendar: 'year-end', until: T0 + 60_000 };
    const lines = await pipedLines(
      [snap([step('create', 'pending')], { windowWait }), T0 + 1_000],
      [snap([step('create', 'running', { startedAt: T0 + 60_000 })]), T0 + 61_000],
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('create waits for change window year-end (policy freeze)');
    expect(lines[1]).toBe(`${formatClock(T0 + 60_000)} create running`);
  });

  test('--json carries it, and the report says how long of the run it took', () => {
    expect(
      runJson(
        { ...queued, status: 'running', outputs: {}, secretOutputs: [], progress: queued.progress! },
        false,
      ),
    ).toMatchObject({
      waitingForLock: LOCK,
    });
    const finished: RunProgress = {
      ...queued.progress!,
      status: 'succeeded',
      endedAt: T0 + 40_000,
      steps: [step('create', 'done', { startedAt: T0 + 22_000, endedAt: T0 + 23_000 })],
    };
    delete finished.waitingForLock;
    const outcome: RunOutcome = {
      workflowId: 'provision-production-service-7237fe',
      runId: 'r1',
      runbook: 'provision-production-service',
      status: 'succeeded',
      progress: finished,
      outputs: {},
      secretOutputs: [],
    };
    const lockWait = lockWaitOf(finished, LOCK);
    expect(lockWait).toEqual({ key: LOCK, ms: 22_000 });
    expect(
      renderOutcome(
        { globals: { json: false } },
        { ...outcome, ...(lockWait ? { lockWait } : {}) },
        PLAIN_STYLE,
        false,
      ),
    ).toContain(
      `succeeded in 40.0s (22.0s of it waiting for lock ${LOCK}) (run provision-production-service-7237fe)`,
    );
  });
});

describe('a wait', () => {
  const seen = { attempt: 1, polls: 14, lastStatus: 'QUEUED', heartbeatAt: T0 + 9_000 };

  test('at 120 columns leads with what it last saw and its polls; the condition is what gets cut', async () => {
    const lines = await liveLines(120, [snap([ready], {}, { ready: seen }), T0 + 9_500]);
    const row = lines[1] ?? '';
    expect([...row].length).toBeLessThanOrEqual(119);
    expect(row).toMatch(
      /^ {2}▸ ready +running +8\.5s {2}last seen QUEUED · 14 polls · waiting for service\.get: result\.stat.*…$/,
    );
  });

  test('what it saw leads even before the step’s name', async () => {
    const named = {
      ...ready,
      name: 'Wait until the service is READY, which takes a few minutes on a busy cloud',
    };
    const lines = await liveLines(120, [snap([named], {}, { ready: seen }), T0 + 9_500]);
    expect(lines[1]).toMatch(/running +8\.5s {2}last seen QUEUED · 14 polls · /);
  });

  test('says how old its heartbeat is, since Temporal receives them throttled', async () => {
    const [line] = await pipedLines([
      snap([ready], {}, { ready: { ...seen, polls: 1, heartbeatAt: T0 + 1_000 } }),
      T0 + 9_000,
    ]);
    expect(line).toContain('last seen QUEUED · 1 poll · as of 8.0s ago · waiting for');
  });

  test('before its first heartbeat it says no poll was reported yet, then the condition', async () => {
    const [line] = await pipedLines([snap([ready], {}, { ready: { attempt: 1 } }), T0 + 8_000]);
    expect(line).toContain(
      "ready running · no poll reported yet · waiting for service.get: result.status == 'READY'",
    );
  });

  test('an answer that stays UNSTABLE says for how long while it happens', async () => {
    let watched: RunSnapshot | undefined;
    const look = (now: number, polls: number): RunSnapshot => {
      const next = snap(
        [ready],
        {},
        { ready: { attempt: 1, polls, lastStatus: 'UNSTABLE', heartbeatAt: now } },
      );
      watched = trackActivities(watched, next, now);
      return watched;
    };
    const first = look(T0 + 5_000, 3);
    const later = look(T0 + 65_000, 12);
    expect(later.activities.ready?.lastStatusSince).toBe(T0 + 5_000);
    const lines = await liveLines(160, [first, T0 + 5_000], [later, T0 + 65_000]);
    expect(lines[1]).toContain('last seen UNSTABLE for 1m00s · 12 polls');
  });

  test('piped: a wait that goes on is logged again, so the log stays current', async () => {
    const at = (now: number, polls: number): [RunSnapshot, number] => [
      snap([ready], {}, { ready: { attempt: 1, polls, lastStatus: 'QUEUED', heartbeatAt: now } }),
      now,
    ];
    const lines = await pipedLines(at(T0 + 2_000, 1), at(T0 + 10_000, 4), at(T0 + 40_000, 9));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('last seen QUEUED · 9 polls');
  });
});

describe('a run that compensates and ends', () => {
  const failedWait = step('ready', 'failed', {
    kind: 'wait',
    startedAt: T0 + 1_000,
    endedAt: T0 + 61_000,
    error: {
      type: 'WAIT_TIMEOUT',
      message:
        "gave up waiting for service.get: result.status == 'READY' after 1m00s (31 polls; last seen QUEUED); the service may still come up later",
    },
  });
  const steps = [
    step('create', 'compensated', { startedAt: T0, endedAt: T0 + 62_000 }),
    step('create/undo.delete_the_created_service', 'done', {
      startedAt: T0 + 61_500,
      endedAt: T0 + 62_000,
      compensates: 'create',
    }),
    failedWait,
    step('prod', 'pending'),
  ];
  const before = snap([
    step('create', 'done', { startedAt: T0, endedAt: T0 + 1_000 }),
    { ...failedWait, status: 'running', endedAt: undefined, error: undefined },
    step('prod', 'pending'),
  ]);
  const ended = snap(steps, { status: 'failed', endedAt: T0 + 62_000 });

  test('undo rows keep the step column where it was; errors are read whole; pending steps read `not run`', async () => {
    const [, createBefore] = await liveLines(120, [before, T0 + 2_000]);
    const lines = await liveLines(120, [ended, T0 + 63_000]);
    expect(lines[0]?.startsWith(' ')).toBe(true); // no spinner on an ended run
    expect(lines[1]).toMatch(/^ {2}↩ create +compensated/);
    expect(lines[2]).toMatch(/^ {2}✓ {3}undo\.delete_t… {2}done/);
    expect(createBefore?.indexOf('done')).toBe(lines[2]?.indexOf('done'));
    const error = lines
      .slice(4, -1)
      .map((line) => line.trim())
      .join(' ');
    expect(error).toBe(`WAIT_TIMEOUT: ${failedWait.error!.message}`);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(119);
    expect(lines.at(-1)).toMatch(/^ {2}· prod +not run$/);
  });

  test('piped status of the finished run: each line at the time of its change, the done line kept', async () => {
    const lines = await pipedLines([ended, T0 + 3_600_000]);
    expect(lines).toEqual([
      `${formatClock(T0)} create done`,
      `${formatClock(T0 + 61_000)} ready failed in 1m00s · WAIT_TIMEOUT: ${failedWait.error!.message}`,
      `${formatClock(T0 + 62_000)} create compensated`,
      `${formatClock(T0 + 62_000)} create/undo.delete_the_created_service done in 500ms`,
      `${formatClock(T0 + 62_000)} prod not run`,
    ]);
  });
});

test('piped: a step done between two looks and then undone still logs its done line', async () => {
  const lines = await pipedLines(
    [snap([step('prepare', 'running', { startedAt: T0 })]), T0 + 500],
    [snap([step('prepare', 'compensating', { startedAt: T0, endedAt: T0 + 1_000 })]), T0 + 2_000],
  );
  expect(lines.map((line) => line.slice(9))).toEqual([
    'prepare running',
    'prepare done',
    'prepare compensating',
  ]);
});

test('after Ctrl-C the frame left on screen has no spinner', async () => {
  const { ctx, text } = output(true, 120);
  const view = new LiveProgressView(ctx, PLAIN_STYLE);
  view.update(snap([ready]), T0 + 2_000);
  view.stop();
  await flush();
  const frames = text().split('\u001b[J');
  expect(frames).toHaveLength(2);
  expect(frames[0]?.[0]).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  expect(frames[1]?.startsWith('  provision-production-service')).toBe(true);
});

test('a frame of an ended run is left as it is: no second draw', async () => {
  const { ctx, text } = output(true, 120);
  const view = new LiveProgressView(ctx, PLAIN_STYLE);
  view.update(
    { ...snap([step('create', 'done', { startedAt: T0, endedAt: T0 + 1 })]), closed: true },
    T0 + 2_000,
  );
  view.stop();
  await flush();
  expect(text().split('\u001b[J')).toHaveLength(1);
});
