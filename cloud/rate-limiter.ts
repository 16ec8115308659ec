// One project's API budget, shared by every call a worker makes to it (every run, every activity,
// local or not, every poll of a wait): at most `callsPerSecond` requests started per second, spaced
// evenly (at 90 % of it: spacingMs), and at most `concurrentCalls` in flight. A 429 answer with
// Retry-After pauses every caller of the project until then, not only the one that got it. When several workers serve the
// same task queue, each takes its share of the budget (`share`, worker/rate-share.ts), so that
// together they stay under it.
import type { ActionInput, ActionName, ActionOutput } from './operations';
import type { CallOptions, CloudCaller } from './client';
import { isCloudApiError } from './errors';

/** A project's API budget (the worker configuration's `rateLimit`). */
export interface RateLimit {
  callsPerSecond?: number | undefined;
  concurrentCalls?: number | undefined;
}

export interface LimiterClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: LimiterClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export class ProjectRateLimiter {
  private lastStart = -Infinity;
  private queue: Promise<void> = Promise.resolve();
  private pausedUntil = 0;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private sharers = 1;

  constructor(
    readonly limit: RateLimit,
    private readonly clock: LimiterClock = realClock,
  ) {}

  /** How many workers share the budget (at least 1); each takes an equal part. */
  share(workers: number): void {
    this.sharers = Math.max(1, Math.floor(workers));
    this.drain();
  }

  get workers(): number {
    return this.sharers;
  }

  /** Requests per second this worker may start, or undefined without a rate. */
  get rate(): number | undefined {
    const perSecond = this.limit.callsPerSecond;
    return perSecond === undefined ? undefined : perSecond / this.sharers;
  }

  /** Calls this worker may have in flight (at least 1), or undefined without a limit. */
  get concurrency(): number | undefined {
    const concurrent = this.limit.concurrentCalls;
    return concurrent === undefined ? undefined : Math.max(1, Math.floor(concurrent / this.sharers));
  }

  /** Every caller waits `ms` from now before its next request (a 429's Retry-After). */
  pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /** Waits for a free call and a start slot; the returned function gives the call back. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    await this.enter(signal);
    try {
      await this.startSlot(signal);
    } catch (error) {
      this.leave();
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leave();
    };
  }

  private async enter(signal: AbortSignal | undefined): Promise<void> {
    if (this.inFlight < (this.concurrency ?? Infinity) && this.waiting.length === 0) {
      this.inFlight += 1;
      return;
    }
    // `drain` counts the call in when it wakes it.
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      this.waiting.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private leave(): void {
    this.inFlight -= 1;
    this.drain();
  }

  /** Lets the longest waiters in while there is room. */
  private drain(): void {
    const limit = this.concurrency ?? Infinity;
    while (this.inFlight < limit && this.waiting.length > 0) {
      this.inFlight += 1;
      this.waiting.shift()!();
    }
  }

  /**
   * Waits for this call's turn to start: callers start one after the other, in arrival order, each
   * at least one spacing after the previous start (measured from when it really started, so a late
   * timer never lets two start together), and not before a pause ends.
   */
  private startSlot(signal: AbortSignal | undefined): Promise<void> {
    const turn = this.queue.then(() => this.waitForStart(signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async waitForStart(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const now = this.clock.now();
      const rate = this.rate;
      const at = Math.max(this.pausedUntil, rate === undefined ? 0 : this.lastStart + spacingMs(rate));
      if (at <= now) {
        this.lastStart = now;
        return;
      }
      await this.clock.sleep(at - now, signal);
    }
  }
}

/**
 * The time between two starts at `rate` per second: at 90 % of the budget, so that requests that
 * arrive at the API up to a tenth of a second unevenly (network, a busy event loop) still never
 * put more than the budget into any second there.
 */
export function spacingMs(rate: number): number {
  return 1000 / (rate * RATE_UTILISATION);
}

export const RATE_UTILISATION = 0.9;

/** A caller whose every request goes through the project's limiter; a 429 pauses every caller. */
export function rateLimitedCaller(inner: CloudCaller, limiter: ProjectRateLimiter): CloudCaller {
  return {
    async call<A extends ActionName>(action: A, input: ActionInput<A>, options?: CallOptions) {
      const release = await limiter.acquire(options?.signal);
      try {
        return (await inner.call(action, input, options)) as ActionOutput<A>;
      } catch (error) {
        if (isCloudApiError(error) && error.code === 'CLOUD_API_RATE_LIMITED') {
          // Without Retry-After: a second, so that the others do not hammer the project meanwhile.
          limiter.pauseFor(error.retryAfterMs ?? 1_000);
        }
        throw error;
      } finally {
        release();
      }
    },
  };
}
