// A project's API budget on a fake clock: starts spaced at the rate, never more in flight than the
// concurrency, a 429's Retry-After pausing every caller, a budget shared by several workers, and a
// waiting call given up by its signal.
import { ProjectRateLimiter, rateLimitedCaller } from '../../cloud/rate-limiter';
import { CloudApiError } from '../../cloud/errors';
import type { CloudCaller } from '../../cloud/client';

beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

/** Starts `count` calls that each take `ms`; records when each started and how many ran at once. */
function load(limiter: ProjectRateLimiter, count: number, ms: number) {
  const starts: number[] = [];
  let running = 0;
  let most = 0;
  const inner: CloudCaller = {
    call: async () => {
      starts.push(Date.now());
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
      return {} as never;
    },
  };
  const caller = rateLimitedCaller(inner, limiter);
  const done = Promise.all(Array.from({ length: count }, () => caller.call('project.list', {} as never)));
  return { starts, most: () => most, done };
}

test('starts are spaced evenly at 90 % of the rate: 10 calls at 5/s, 222 ms apart', async () => {
  const run = load(new ProjectRateLimiter({ callsPerSecond: 5 }), 10, 10);
  await jest.advanceTimersByTimeAsync(5_000);
  await run.done;
  const gaps = run.starts.slice(1).map((at, i) => at - run.starts[i]!);
  // Timers fire on whole milliseconds: never sooner than the spacing, at most 1 ms later.
  for (const gap of gaps) {
    expect(gap).toBeGreaterThanOrEqual(1000 / 4.5);
    expect(gap).toBeLessThanOrEqual(1000 / 4.5 + 1);
  }
});

test('never more in flight than the concurrency, and every call runs', async () => {
  const run = load(new ProjectRateLimiter({ concurrentCalls: 3 }), 12, 500);
  await jest.advanceTimersByTimeAsync(5_000);
  await run.done;
  expect(run.most()).toBe(3);
  expect(run.starts).toHaveLength(12);
  // Four rounds of three, half a second each.
  expect(run.starts.at(-1)! - run.starts[0]!).toBe(1_500);
});

test('a 429 with Retry-After pauses every caller of the project, not only the one that got it', async () => {
  const limiter = new ProjectRateLimiter({ callsPerSecond: 100 });
  const starts: number[] = [];
  let first = true;
  const inner: CloudCaller = {
    call: async () => {
      starts.push(Date.now());
      if (first) {
        first = false;
        throw new CloudApiError({
          code: 'CLOUD_API_RATE_LIMITED',
          message: 'slow down',
          status: 429,
          retryAfterMs: 2_000,
        });
      }
      return {} as never;
    },
  };
  const caller = rateLimitedCaller(inner, limiter);
  const limitedOne = caller.call('project.list', {} as never).catch((e: unknown) => e);
  await jest.advanceTimersByTimeAsync(1);
  expect(await limitedOne).toBeInstanceOf(CloudApiError);
  const others = Promise.all([1, 2, 3].map(() => caller.call('project.list', {} as never)));
  await jest.advanceTimersByTimeAsync(3_000);
  await others;
  expect(starts).toHaveLength(4);
  for (const at of starts.slice(1)) expect(at - starts[0]!).toBeGreaterThanOrEqual(2_000);
});

test('a budget shared by two workers: each takes half the rate and half the calls', async () => {
  const limiter = new ProjectRateLimiter({ callsPerSecond: 10, concurrentCalls: 4 });
  limiter.share(2);
  expect({ rate: limiter.rate, concurrency: limiter.concurrency }).toEqual({ rate: 5, concurrency: 2 });
  limiter.share(8);
  expect(limiter.concurrency).toBe(1);
  const run = load(limiter, 3, 10);
  await jest.advanceTimersByTimeAsync(2_000);
  await run.done;
  // 10/s over 8 workers: 1.25/s each, at 90 %.
  expect(run.starts[1]! - run.starts[0]!).toBeGreaterThanOrEqual(1000 / 1.125);
  expect(run.starts[1]! - run.starts[0]!).toBeLessThanOrEqual(1000 / 1.125 + 1);
});

test('a call waiting for its turn is given up when its signal aborts, and frees nothing it did not take', async () => {
  const limiter = new ProjectRateLimiter({ concurrentCalls: 1 });
  const held = await limiter.acquire();
  const abort = new AbortController();
  const waiting = limiter.acquire(abort.signal).catch((e: unknown) => e);
  abort.abort(new Error('cancelled'));
  expect(await waiting).toEqual(new Error('cancelled'));
  held();
  held();
  const next = await limiter.acquire();
  const third = limiter.acquire();
  let got = false;
  void third.then(() => (got = true));
  await jest.advanceTimersByTimeAsync(10);
  expect(got).toBe(false);
  next();
  await jest.advanceTimersByTimeAsync(10);
  expect(got).toBe(true);
});
