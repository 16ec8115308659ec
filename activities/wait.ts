// The wait activity: polls a read operation until a CEL condition holds. All polling happens inside
// one activity, so a wait adds the same few history events whether it lasts 10 s or 10 min. A
// watch (a bake period) is the same poll with other ends: no answer ends it early, its deadline is
// its success, and `failIf` fails it with WATCH_FAILED.
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { ActionName } from '../cloud/operations';
import { operations } from '../cloud/operations';
import { isCloudApiError } from '../cloud/errors';
import { evaluateCondition } from '../dsl/expressions';
import type { ActivityDeps } from './deps';
import { systemClock } from './deps';
import { activityFailure, toActivityFailure } from './failures';
import { callAction } from './call-action';

export interface WaitInput {
  /** A read action to poll, e.g. `service.get`. */
  action: ActionName;
  input: Record<string, unknown>;
  /** CEL over `result` (and `vars`): the wait ends when it is true. */
  until?: string;
  /** CEL over `result` (and `vars`): the wait fails at once when it is true. */
  failIf?: string;
  /** Extra variables for the expressions (e.g. `inputs`, `steps`). */
  vars?: Record<string, unknown>;
  /** Waiting for a deletion: a 404 answer ends the wait successfully. */
  untilDeleted?: boolean;
  /** When the wait began and when it must give up (epoch ms, fixed by the workflow). */
  startedAt: number;
  deadline: number;
  /** First interval between polls; later ones grow to 10 % of the time waited, capped. */
  intervalMs?: number;
  maxIntervalMs?: number;
  /**
   * A watch: it ends at the deadline with the last answer, not on an answer, and `failIf` fails it
   * with WATCH_FAILED. It fails at the deadline only when no read was answered.
   */
  watch?: boolean;
}

export interface WaitResult {
  /** The last answer (null when the resource was deleted). */
  result: unknown;
  deleted: boolean;
  polls: number;
  waitedMs: number;
}

/** What a wait reports in its heartbeats, and resumes from after a worker restart. */
export interface WaitProgress {
  polls: number;
  lastStatus?: string | undefined;
  lastError?: string | undefined;
}

export const DEFAULT_POLL_INTERVAL_MS = 1_000;
export const DEFAULT_MAX_POLL_INTERVAL_MS = 15_000;
/** Well under the wait's heartbeat timeout, so a hung poll cannot make the server give up on us. */
const DEFAULT_POLL_REQUEST_TIMEOUT_MS = 10_000;
/** Long pauses are slept in slices with a heartbeat between them (and before every poll). */
const DEFAULT_HEARTBEAT_SLICE_MS = 5_000;
/**
 * A wait's first heartbeat comes this long into its attempt; the SDK spaces later ones to 80 % of
 * the heartbeat timeout. Each heartbeat is a write to the server's store (≈ 3–4 ms of dev-server
 * CPU, `npm run bench`), so a wait that ends sooner costs none. Bounded by the heartbeat timeout
 * (30 s, workflows/activity-policies.ts): 12 s, then at most one poll (10 s) before a heartbeat;
 * a wait scheduled with a shorter timeout heartbeats sooner.
 */
const DEFAULT_FIRST_HEARTBEAT_AFTER_MS = 12_000;
/** Detection lag stays within this share of the time already waited. */
const LAG_SHARE = 0.1;

/**
 * The pause before the next poll: at least `min`, at most `max`, otherwise 10 % of the time
 * waited so far. Above the floor it is jittered by ±10 % (its mean stays on the target), so waits
 * that began together drift apart; at the floor it is exact, because any jitter there either adds
 * calls (shorter pauses) or lag (longer ones) — the first poll's random phase already keeps waits
 * at the floor out of step.
 */
export function nextPollDelay(waitedMs: number, min: number, max: number, random: () => number): number {
  const base = Math.min(max, Math.max(min, waitedMs * LAG_SHARE));
  if (base <= min) return min;
  return Math.min(max, Math.round(base * (0.9 + 0.2 * random())));
}

/**
 * The first poll comes at a random moment within the first interval instead of at once: a wait
 * usually follows the change it waits for, whose effect is not there yet, so an immediate poll
 * mostly costs a call; the random phase spreads waits that start together. The lag stays within
 * one interval, as for every later poll.
 */
export function firstPollDelay(min: number, random: () => number): number {
  return Math.round(min * random());
}

export function createWaitActivity(deps: ActivityDeps) {
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? Math.random;
  const requestTimeoutMs = deps.pollRequestTimeoutMs ?? DEFAULT_POLL_REQUEST_TIMEOUT_MS;
  const slice = deps.heartbeatSliceMs ?? DEFAULT_HEARTBEAT_SLICE_MS;
  const firstHeartbeatAfter = deps.firstHeartbeatAfterMs ?? DEFAULT_FIRST_HEARTBEAT_AFTER_MS;

  return async function waitFor(request: WaitInput): Promise<WaitResult> {
    if (operations[request.action].kind !== 'read') {
      throw activityFailure(
        'ACTIVITY_INPUT_INVALID',
        `wait can only poll read actions; ${request.action} changes state`,
      );
    }
    const ctx = Context.current();
    const attemptStartedAt = clock.now();
    // The first heartbeat must still beat the activity's own heartbeat timeout (a run scheduled
    // the wait with it) by one poll and one pause slice; a short timeout heartbeats at once.
    const timeoutMs = ctx.info.heartbeatTimeoutMs ?? Number.POSITIVE_INFINITY;
    const firstDue = Math.min(firstHeartbeatAfter, Math.max(0, timeoutMs - requestTimeoutMs - slice));
    /** Heartbeats once the attempt is old enough (the SDK throttles what follows). */
    const heartbeat = () => {
      if (clock.now() - attemptStartedAt >= firstDue) ctx.heartbeat(progress);
    };
    const resumed = ctx.info.heartbeatDetails as WaitProgress | undefined;
    const progress: WaitProgress = { polls: resumed?.polls ?? 0 };
    const min = request.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const max = Math.max(min, request.maxIntervalMs ?? DEFAULT_MAX_POLL_INTERVAL_MS);
    const vars = request.vars ?? {};
    let answered: { result: unknown } | undefined;
    /** At the deadline: a watch that was answered has passed; anything else timed out. */
    const atDeadline = (): WaitResult => {
      if (request.watch && answered !== undefined) {
        return {
          result: answered.result,
          deleted: false,
          polls: progress.polls,
          waitedMs: clock.now() - request.startedAt,
        };
      }
      throw timeoutFailure(request, progress, clock.now());
    };

    // A wait resumed after a worker restart polls at once: its phase is long past.
    if (resumed === undefined) {
      await pauseFor(firstPollDelay(min, random), request.deadline - clock.now());
    }
    for (;;) {
      const remaining = request.deadline - clock.now();
      if (remaining <= 0) return atDeadline();
      progress.polls += 1;
      heartbeat();
      try {
        const result = await callAction(deps, request.action, request.input, {
          signal: ctx.cancellationSignal,
          timeoutMs: Math.min(requestTimeoutMs, remaining),
        });
        progress.lastStatus = statusOf(result);
        progress.lastError = undefined;
        answered = { result };
        const scope = { ...vars, result };
        if (request.failIf !== undefined && evaluateCondition(request.failIf, scope)) {
          throw activityFailure(
            request.watch ? 'WATCH_FAILED' : 'WAIT_FAILED_CONDITION',
            `${request.action} met the failure condition \`${request.failIf}\`${describeStatus(progress)}${request.watch ? ` at read ${progress.polls}` : ''}`,
            { status: progress.lastStatus, polls: progress.polls },
          );
        }
        // A wait for deletion ends only on 404: an answer means the resource is still there; a
        // watch ends only at its deadline.
        const done =
          request.watch || request.untilDeleted
            ? false
            : request.until === undefined || evaluateCondition(request.until, scope);
        if (done) {
          return { result, deleted: false, polls: progress.polls, waitedMs: clock.now() - request.startedAt };
        }
      } catch (error) {
        if (ctx.cancellationSignal.aborted) throw new CancelledFailure('wait cancelled');
        if (isCloudApiError(error)) {
          if (error.code === 'CLOUD_API_NOT_FOUND' && request.untilDeleted) {
            return {
              result: null,
              deleted: true,
              polls: progress.polls,
              waitedMs: clock.now() - request.startedAt,
            };
          }
          // Transient trouble while polling is expected; the deadline bounds it.
          if (error.retryable) {
            progress.lastError = `${error.code}: ${error.message}`;
          } else {
            throw toActivityFailure(error);
          }
        } else {
          throw toActivityFailure(error);
        }
      }
      heartbeat();
      const waited = clock.now() - request.startedAt;
      const pause = nextPollDelay(waited, min, max, random);
      const untilDeadline = request.deadline - clock.now();
      if (untilDeadline <= 0) return atDeadline();
      await pauseFor(pause, untilDeadline);
    }

    /** Sleeps in slices with a heartbeat after each, so a long pause keeps the wait alive. */
    async function pauseFor(pause: number, untilDeadline: number): Promise<void> {
      for (let left = Math.min(pause, untilDeadline); left > 0; left -= slice) {
        await ctx.sleep(Math.min(left, slice));
        heartbeat();
      }
    }
  };
}

function statusOf(result: unknown): string | undefined {
  if (result !== null && typeof result === 'object' && 'status' in result) {
    const status = (result as { status?: unknown }).status;
    return typeof status === 'string' ? status : undefined;
  }
  return undefined;
}

function describeStatus(progress: WaitProgress): string {
  return progress.lastStatus === undefined ? '' : ` (status ${progress.lastStatus})`;
}

function timeoutFailure(request: WaitInput, progress: WaitProgress, now: number) {
  const waited = Math.round((now - request.startedAt) / 1000);
  const condition = request.watch
    ? 'an answer to watch'
    : request.untilDeleted
      ? 'deletion'
      : `\`${request.until ?? 'an answer'}\``;
  const last = progress.lastError ? `; last error: ${progress.lastError}` : describeStatus(progress);
  return activityFailure(
    'WAIT_TIMEOUT',
    `gave up waiting for ${condition} on ${request.action} after ${waited}s and ${progress.polls} polls${last}`,
    { polls: progress.polls, status: progress.lastStatus },
  );
}
