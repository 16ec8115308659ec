import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { CloudApiError } from '../../cloud/errors';
import type { ActivityDeps, CloudCaller } from '../../activities/deps';
import {
  createWaitActivity,
  firstPollDelay,
  nextPollDelay,
  type WaitInput,
  type WaitResult,
} from '../../activities/wait';
import { rejectionOf } from '../helpers/rejection';

/** A scripted caller: each call takes the next answer (a value, an error, or 'hang'). */
function scripted(answers: Array<unknown>): CloudCaller & { calls: number } {
  const caller = {
    calls: 0,
    async call(_action: string, _input: unknown, options?: { signal?: AbortSignal; timeoutMs?: number }) {
      const answer = answers[Math.min(caller.calls, answers.length - 1)];
      caller.calls += 1;
      if (answer === 'hang') {
        await new Promise((_resolve, reject) => {
          const timer = setTimeout(
            () => reject(new CloudApiError({ code: 'CLOUD_API_TIMEOUT', message: 'timed out' })),
            options?.timeoutMs ?? 60_000,
          );
          options?.signal?.addEventListener('abort', () => clearTimeout(timer));
        });
      }
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return caller as unknown as CloudCaller & { calls: number };
}

function deps(caller: CloudCaller): ActivityDeps {
  return { clients: { forProject: () => caller }, random: () => 1 };
}

const base = (overrides: Partial<WaitInput> = {}): WaitInput => ({
  action: 'service.get',
  input: { project_id: 'p1', service_id: 's1' },
  until: "result.status == 'READY'",
  startedAt: Date.now(),
  deadline: Date.now() + 10_000,
  intervalMs: 10,
  maxIntervalMs: 20,
  ...overrides,
});

const failureOf = (pending: Promise<unknown>) => rejectionOf(pending, ApplicationFailure);

describe('wait activity', () => {
  test('polls until the condition holds, through transient errors', async () => {
    const caller = scripted([
      { status: 'QUEUED' },
      new CloudApiError({ code: 'CLOUD_API_SERVER_ERROR', message: 'boom', status: 503 }),
      { status: 'CONFIGURING' },
      { status: 'READY', name: 'x' },
    ]);
    const result = (await new MockActivityEnvironment().run(
      createWaitActivity(deps(caller)),
      base(),
    )) as WaitResult;
    expect(result.result).toEqual({ status: 'READY', name: 'x' });
    expect(result.polls).toBe(4);
    expect(caller.calls).toBe(4);
  });

  test('stops at once on the failure condition', async () => {
    const caller = scripted([{ status: 'QUEUED' }, { status: 'UNSTABLE' }, { status: 'READY' }]);
    const failure = await failureOf(
      new MockActivityEnvironment().run(
        createWaitActivity(deps(caller)),
        base({ failIf: "result.status == 'UNSTABLE'" }),
      ),
    );
    expect(failure.type).toBe('WAIT_FAILED_CONDITION');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('UNSTABLE');
    expect(caller.calls).toBe(2);
  });

  test('a 404 ends a wait for deletion successfully', async () => {
    const caller = scripted([
      { status: 'DELETING' },
      new CloudApiError({ code: 'CLOUD_API_NOT_FOUND', message: 'gone', status: 404 }),
    ]);
    const result = (await new MockActivityEnvironment().run(
      createWaitActivity(deps(caller)),
      base({ until: 'false', untilDeleted: true }),
    )) as WaitResult;
    expect(result.deleted).toBe(true);
    expect(result.result).toBeNull();
  });

  test('a 404 fails a wait that is not for deletion, without retry', async () => {
    const caller = scripted([
      new CloudApiError({ code: 'CLOUD_API_NOT_FOUND', message: 'gone', status: 404 }),
    ]);
    const failure = await failureOf(
      new MockActivityEnvironment().run(createWaitActivity(deps(caller)), base()),
    );
    expect(failure.type).toBe('CLOUD_API_NOT_FOUND');
    expect(failure.nonRetryable).toBe(true);
  });

  test('the deadline fires while a request hangs', async () => {
    // The hanging call ends only by the time limit it is given (60 s without one): that limit must
    // be what is left of the wait's deadline, so the wait ends at its deadline, not 60 s later.
    const hanging = scripted(['hang']);
    const limits: Array<number | undefined> = [];
    const caller = {
      call: (action: string, input: unknown, options?: { signal?: AbortSignal; timeoutMs?: number }) => {
        limits.push(options?.timeoutMs);
        return hanging.call(action as never, input as never, options);
      },
    } as unknown as CloudCaller;
    const started = Date.now();
    const failure = await failureOf(
      new MockActivityEnvironment().run(
        createWaitActivity(deps(caller)),
        base({ startedAt: started, deadline: started + 300 }),
      ),
    );
    const took = Date.now() - started;
    expect(failure.type).toBe('WAIT_TIMEOUT');
    expect(failure.message).toContain('CLOUD_API_TIMEOUT');
    expect(took).toBeGreaterThanOrEqual(290);
    expect(limits).toHaveLength(1);
    expect(limits[0]).toBeGreaterThan(0);
    expect(limits[0]).toBeLessThanOrEqual(300);
  });

  test('refuses to poll an action that changes state', async () => {
    const caller = scripted([{}]);
    const failure = await failureOf(
      new MockActivityEnvironment().run(createWaitActivity(deps(caller)), base({ action: 'service.stop' })),
    );
    expect(failure.type).toBe('ACTIVITY_INPUT_INVALID');
    expect(caller.calls).toBe(0);
  });

  test('a condition that is not boolean is an expression error', async () => {
    const caller = scripted([{ status: 'READY' }]);
    const failure = await failureOf(
      new MockActivityEnvironment().run(createWaitActivity(deps(caller)), base({ until: 'result.status' })),
    );
    expect(failure.type).toBe('EXPRESSION_ERROR');
  });
});

test('a long pause between polls is slept in slices with a heartbeat after each', async () => {
  const caller = scripted([{ status: 'QUEUED' }, { status: 'READY' }]);
  const env = new MockActivityEnvironment();
  const beats: unknown[] = [];
  env.on('heartbeat', (details: object) => beats.push({ ...details }));
  await env.run(
    createWaitActivity({ ...deps(caller), heartbeatSliceMs: 50, firstHeartbeatAfterMs: 0 }),
    base({ intervalMs: 300, maxIntervalMs: 300 }),
  );
  // The first poll's phase (300 ms here) and the 300 ms pause are slept in 50 ms slices with a
  // heartbeat after each; one more heartbeat before each of the 2 polls.
  expect(beats.length).toBeGreaterThanOrEqual(12);
  expect(beats[0]).toEqual({ polls: 0 });
  expect(beats).toContainEqual({ polls: 1 });
});

describe('first heartbeat', () => {
  /** A clock the test moves: each poll of the scripted API takes `pollMs`. */
  function movingClock(pollMs: number): { clock: { now(): number }; caller: CloudCaller } {
    let now = 0;
    const answers = [{ status: 'QUEUED' }, { status: 'QUEUED' }, { status: 'QUEUED' }, { status: 'READY' }];
    let calls = 0;
    return {
      clock: { now: () => now },
      caller: {
        async call() {
          now += pollMs;
          const answer = answers[Math.min(calls, answers.length - 1)];
          calls += 1;
          return answer as never;
        },
      },
    };
  }

  async function heartbeatsOf(pollMs: number, heartbeatTimeoutMs?: number): Promise<unknown[]> {
    const { clock, caller } = movingClock(pollMs);
    const env = new MockActivityEnvironment(heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs });
    const beats: unknown[] = [];
    env.on('heartbeat', (details: object) => beats.push({ ...details }));
    await env.run(
      createWaitActivity({ ...deps(caller), clock, heartbeatSliceMs: 5, firstHeartbeatAfterMs: 12_000 }),
      base({ intervalMs: 1, maxIntervalMs: 1, startedAt: 0, deadline: 600_000 }),
    );
    return beats;
  }

  test('a wait that ends before its first heartbeat is due sends none: each is a write on the server', async () => {
    // 4 polls, 2 s apart on the clock: done at 8 s.
    expect(await heartbeatsOf(2_000)).toEqual([]);
  });

  test('a wait that lasts longer heartbeats from then on, with its progress', async () => {
    // 4 polls, 5 s apart: the poll at 15 s is the first past 12 s.
    const beats = await heartbeatsOf(5_000);
    expect(beats.length).toBeGreaterThan(0);
    expect(beats[0]).toMatchObject({ polls: 3 });
  });

  test('a wait scheduled with a short heartbeat timeout heartbeats from the start', async () => {
    const beats = await heartbeatsOf(2_000, 2_000);
    expect(beats[0]).toEqual({ polls: 0 });
  });
});

describe('poll interval', () => {
  test('starts at the minimum, grows with 10 % of the time waited, and is capped', () => {
    const mid = () => 0.5;
    expect(nextPollDelay(0, 1_000, 15_000, mid)).toBe(1_000);
    expect(nextPollDelay(50_000, 1_000, 15_000, mid)).toBe(5_000);
    expect(nextPollDelay(600_000, 1_000, 15_000, mid)).toBe(15_000);
  });

  test('jitter keeps the mean on the target above the floor, within ±10 % and the cap', () => {
    expect(nextPollDelay(50_000, 1_000, 15_000, () => 0)).toBe(4_500);
    expect(nextPollDelay(50_000, 1_000, 15_000, () => 0.5)).toBe(5_000);
    expect(nextPollDelay(50_000, 1_000, 15_000, () => 1)).toBe(5_500);
    expect(nextPollDelay(600_000, 1_000, 15_000, () => 1)).toBe(15_000);
  });

  test('at the floor the pause is exact: jitter there would add calls or lag', () => {
    expect(nextPollDelay(3_000, 1_000, 15_000, () => 0)).toBe(1_000);
    expect(nextPollDelay(9_999, 1_000, 15_000, () => 1)).toBe(1_000);
  });

  test('the first poll comes at a random moment within the first interval', () => {
    expect(firstPollDelay(1_000, () => 0)).toBe(0);
    expect(firstPollDelay(1_000, () => 0.25)).toBe(250);
    expect(firstPollDelay(1_000, () => 1)).toBe(1_000);
  });
});

describe('wait activity, as a watch', () => {
  const watch = (overrides: Partial<WaitInput> = {}) =>
    base({
      failIf: "result.status == 'PAUSED'",
      deadline: Date.now() + 300,
      intervalMs: 20,
      maxIntervalMs: 20,
      watch: true,
      ...overrides,
    });

  it('passes at its deadline with the last answer when the condition never holds', async () => {
    const caller = scripted([
      { status: 'READY', n: 1 },
      { status: 'READY', n: 2 },
    ]);
    const watched = (await new MockActivityEnvironment().run(
      createWaitActivity(deps(caller)),
      watch(),
    )) as WaitResult;
    expect(watched.result).toEqual({ status: 'READY', n: 2 });
    expect(watched.polls).toBe(caller.calls);
    expect(watched.polls).toBeGreaterThan(1);
  });

  it('fails with WATCH_FAILED at the first answer where the condition holds', async () => {
    const caller = scripted([{ status: 'READY' }, { status: 'PAUSED' }, { status: 'READY' }]);
    const failure = await failureOf(
      new MockActivityEnvironment().run(
        createWaitActivity(deps(caller)),
        watch({ deadline: Date.now() + 60_000 }),
      ),
    );
    expect(failure.type).toBe('WATCH_FAILED');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      "service.get met the failure condition `result.status == 'PAUSED'` (status PAUSED) at read 2",
    );
    expect(caller.calls).toBe(2);
  });

  it('fails at its deadline when no read was answered', async () => {
    const caller = scripted([
      new CloudApiError({ code: 'CLOUD_API_SERVER_ERROR', message: 'boom', status: 503 }),
    ]);
    const failure = await failureOf(
      new MockActivityEnvironment().run(createWaitActivity(deps(caller)), watch()),
    );
    expect(failure.type).toBe('WAIT_TIMEOUT');
    expect(failure.message).toMatch(/^gave up waiting for an answer to watch on service.get after/);
  });
});
