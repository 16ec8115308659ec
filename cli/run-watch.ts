// What the CLI learns only by watching a run over time, beyond one look at it: since when a wait
// has seen the status it reports (UNSTABLE for a minute), and how long the run queued on another
// run's service lock before its steps could start.
import type { RunProgress } from '../contract/run-messages';
import type { ActivityState, RunSnapshot } from './run-observer';

/**
 * Carries forward, from one look at a run to the next, since when each wait has seen the status
 * it reports now, so a status that does not change (UNSTABLE for a minute) says how long it lasts.
 */
export function trackActivities(
  previous: RunSnapshot | undefined,
  next: RunSnapshot,
  now: number,
): RunSnapshot {
  const activities: Record<string, ActivityState> = {};
  for (const [key, state] of Object.entries(next.activities)) {
    const before = previous?.activities[key];
    if (state.lastStatus === undefined) activities[key] = state;
    else if (before?.lastStatus === state.lastStatus && before.lastStatusSince !== undefined)
      activities[key] = { ...state, lastStatusSince: before.lastStatusSince };
    else activities[key] = { ...state, lastStatusSince: state.heartbeatAt ?? now };
  }
  return { ...next, activities };
}

/** When the run got its service locks: its steps start once it holds them, so its first start. */
export function lockedAt(progress: Pick<RunProgress, 'steps'>): number | undefined {
  const starts = progress.steps.flatMap((step) => (step.startedAt === undefined ? [] : [step.startedAt]));
  return starts.length > 0 ? Math.min(...starts) : undefined;
}

/**
 * Below this, a recorded lock wait is the request's own round trip (an activity, then the lock
 * workflow's grant signal), not queuing behind another run, and goes unsaid.
 */
export const LOCK_QUEUED_MS = 1_000;

/**
 * How long the run waited for its service locks, from what it recorded (`lockWaits`, runs since
 * this field exists): the sum of its waits, named after the longest one; a wait it never got the
 * lock for lasts until the run ended. Undefined when it did not queue (see LOCK_QUEUED_MS).
 */
export function recordedLockWait(progress: RunProgress): { key: string; ms: number } | undefined {
  let total = 0;
  let longest: { key: string; ms: number } | undefined;
  for (const wait of progress.lockWaits ?? []) {
    const until = wait.acquiredAt ?? progress.endedAt;
    if (until === undefined) continue;
    const ms = Math.max(0, until - wait.requestedAt);
    total += ms;
    if (longest === undefined || ms > longest.ms) longest = { key: wait.key, ms };
  }
  return longest === undefined || total < LOCK_QUEUED_MS ? undefined : { key: longest.key, ms: total };
}

/** How long a run that was seen waiting for `key` waited (until it ended, if it never got it). */
export function lockWaitOf(progress: RunProgress, key: string): { key: string; ms: number } | undefined {
  const until = lockedAt(progress) ?? progress.endedAt;
  return until === undefined ? undefined : { key, ms: Math.max(0, until - progress.startedAt) };
}
