// One workflow per locked resource: a FIFO mutex. Runs that mutate the same service queue here,
// so two runbooks never change one service at the same time. It ends when nobody holds or waits.
//
// A holder that is terminated never sends its release. Since patch lockWatchesHolder the lock
// watches its holder with an activity that looks at the run every 2 s (describe: nothing is added
// to the holder's history) and hands the lock on as soon as the run has closed. One activity
// covers a 30-minute window, so a lock held for days (an approval) adds a few events per hour, and
// the workflow continues-as-new, holder first in the queue, when its history grows anyway.
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { LockActivities } from '../activities/lock-activities';
import type { WatchHolderResult } from '../activities/lock-holder-watch';
import {
  acquireLockSignal,
  lockGrantedSignal,
  lockPingSignal,
  releaseLockSignal,
  type LockRequest,
} from '../contract/lock-messages';
import { PATCHES } from '../contract/patches';
import { hasPatch, startRelease } from './release-gate';

/** Before lockWatchesHolder: how often a held lock pinged its holder. */
const HOLDER_CHECK_MS = 5 * 60_000;
const HISTORY_LIMIT = 2_000;
/** How late a closed holder is noticed, at most (plus one workflow task). */
const WATCH_POLL_MS = 2_000;
/** One watch activity's span; a longer hold is watched by the next one. */
const WATCH_WINDOW_MS = 30 * 60_000;
/** After a watch failed for a reason other than its cancellation (should not happen: it retries). */
const WATCH_RETRY_PAUSE_MS = 30_000;

const { 'lock.watchHolder': watchHolder } = proxyActivities<LockActivities>({
  startToCloseTimeout: WATCH_WINDOW_MS + 5 * 60_000,
  // A worker that dies while watching is replaced within this (plus the retry interval).
  heartbeatTimeout: '20s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s' },
  // A release must not wait for the watch to acknowledge its cancellation.
  cancellationType: ActivityCancellationType.TRY_CANCEL,
});

type HoldEnd = 'released' | 'gone' | 'rollover';

function historyTooLong(): boolean {
  const info = workflowInfo();
  return info.historyLength > HISTORY_LIMIT || info.continueAsNewSuggested;
}

/** Until the holder releases, closes without releasing, or the history asks for a new run. */
async function watchUntilReleased(key: string, holder: string, released: () => boolean): Promise<HoldEnd> {
  for (;;) {
    if (released()) return 'released';
    if (historyTooLong()) return 'rollover';
    let outcome: WatchHolderResult | 'failed' | undefined;
    const scope = new CancellationScope();
    scope
      .run(() => watchHolder({ key, holderId: holder, windowMs: WATCH_WINDOW_MS, pollMs: WATCH_POLL_MS }))
      .then(
        (result) => void (outcome = result),
        (error: unknown) => {
          outcome = 'failed';
          if (!isCancellation(error)) log.warn('watching the lock holder failed', { key, holder });
        },
      );
    await condition(() => released() || outcome !== undefined || historyTooLong());
    if (outcome === undefined) scope.cancel();
    if (released()) return 'released';
    if (outcome === 'gone') return 'gone';
    if (outcome === 'failed') await condition(released, WATCH_RETRY_PAUSE_MS);
  }
}

/**
 * How a lock waits for its holder to be done: released, gone (closed without releasing) or a
 * rollover (the history asks for a new run). `contended` says whether another run waits.
 */
type HoldWait = (
  key: string,
  holder: string,
  released: () => boolean,
  contended: () => boolean,
) => Promise<HoldEnd>;

/** Before lockWatchesHolder: ping the holder every few minutes; a holder that is gone releases. */
async function pingUntilReleased(key: string, holder: string, released: () => boolean): Promise<HoldEnd> {
  while (!released()) {
    if (await condition(released, HOLDER_CHECK_MS)) break;
    try {
      await getExternalWorkflowHandle(holder).signal(lockPingSignal, { key });
    } catch {
      log.warn('lock holder is gone; releasing its lock', { key, holder });
      return 'released';
    }
  }
  return 'released';
}

/** How a queue treats its first holder and a holder that asks again. */
interface QueueOptions {
  /** Started holding for this run: it knows it holds the lock, so no grant is sent to it. */
  grantedAtStart?: string;
  /**
   * A holder that asks again (its request was retried: it may not know it holds the lock) is sent
   * the grant again.
   */
  regrantToHolder?: boolean;
}

async function sendGrant(key: string, holder: string): Promise<boolean> {
  try {
    await getExternalWorkflowHandle(holder).signal(lockGrantedSignal, { key });
    return true;
  } catch {
    return false;
  }
}

/** The FIFO queue of a lock: grants to the first in line, waits as `hold` says, then the next. */
async function runLockQueue(
  key: string,
  waiting: string[],
  hold: HoldWait,
  options: QueueOptions = {},
): Promise<void> {
  const queue = [...waiting];
  let released = false;
  let askedAgainBy: string | undefined;
  setHandler(acquireLockSignal, (request: LockRequest) => {
    if (options.regrantToHolder === true && queue[0] === request.requesterId)
      askedAgainBy = request.requesterId;
    if (!queue.includes(request.requesterId)) queue.push(request.requesterId);
  });
  if (options.regrantToHolder === true) {
    void (async () => {
      for (;;) {
        await condition(() => askedAgainBy !== undefined);
        const holder = askedAgainBy!;
        askedAgainBy = undefined;
        // Still the holder: a lock handed on meanwhile was granted by the queue itself.
        if (queue[0] === holder) await sendGrant(key, holder);
      }
    })();
  }
  setHandler(releaseLockSignal, (request: LockRequest) => {
    if (queue[0] === request.requesterId) released = true;
    else {
      const at = queue.indexOf(request.requesterId);
      if (at > 0) queue.splice(at, 1);
    }
  });

  let grantedAtStart = options.grantedAtStart;
  while (queue.length > 0) {
    const holder = queue[0]!;
    released = false;
    // Also after a continue-as-new with the holder first: a second grant changes nothing for it.
    const knowsItHolds = holder === grantedAtStart;
    grantedAtStart = undefined;
    if (!knowsItHolds && !(await sendGrant(key, holder))) {
      log.warn('lock holder is gone before it got the lock', { key, holder });
      queue.shift();
      continue;
    }
    const end = await hold(
      key,
      holder,
      () => released,
      () => queue.length > 1,
    );
    // The holder keeps the lock in the next run: it is first in the queue handed over.
    if (end === 'rollover') await continueAsNew<typeof resourceMutexWorkflow>(key, queue);
    if (end === 'gone')
      log.warn('lock holder closed without releasing; passing the lock on', { key, holder });
    queue.shift();
    if (workflowInfo().historyLength > HISTORY_LIMIT && queue.length > 0) {
      await continueAsNew<typeof resourceMutexWorkflow>(key, queue);
    }
  }
}

/** Waits until the holder is done; watches it only while another run waits behind it. */
const holdWatchingWhenContended: HoldWait = async (key, holder, released, contended) => {
  await condition(() => released() || contended() || historyTooLong());
  return watchUntilReleased(key, holder, released);
};

/**
 * The lock as runs start it (LOCK_WORKFLOW_TYPE). A holder is watched only while another run waits
 * behind it: a holder that closed without releasing blocks nobody until then, and an uncontended
 * hold — every lock of a fleet whose items are distinct services — costs no watch activity. A new
 * type rather than a patch, so it asks for none: its history is the queue's signals alone.
 */
export async function resourceMutexWorkflow(key: string, waiting: string[] = []): Promise<void> {
  await runLockQueue(key, waiting, holdWatchingWhenContended);
}

/**
 * The lock as a run starts it holding it (HELD_LOCK_WORKFLOW_TYPE, `lock.take`): started only when
 * no lock workflow of the key runs, with the run first in its queue, so the run holds the lock
 * without an acquire signal and a grant — an uncontended lock's history is its start, the release
 * and their workflow tasks. (Continued as new, it has no `holder`: the holder first in `waiting`
 * is granted again, which changes nothing for it.) Runs that come later queue with the acquire signal as before, so it
 * excludes the runs of earlier releases too (same workflow id and signals). A holder that asks
 * again (its `lock.take` was retried after it had started the lock) is granted again by signal.
 */
export async function resourceHeldLockWorkflow(
  key: string,
  waiting: string[],
  holder?: string,
): Promise<void> {
  await runLockQueue(key, waiting, holdWatchingWhenContended, {
    grantedAtStart: holder,
    regrantToHolder: true,
  });
}

/**
 * The lock as earlier releases started it (WATCHING_LOCK_WORKFLOW_TYPE), kept so that the lock
 * workflows they started still run and replay: it watches every holder (since lockWatchesHolder;
 * before, it pinged it).
 */
export async function resourceLockWorkflow(key: string, waiting: string[] = []): Promise<void> {
  // Before any command (workflows/release-gate.ts).
  startRelease();
  await runLockQueue(key, waiting, (lockKey, holder, released) =>
    hasPatch(PATCHES.lockWatchesHolder)
      ? watchUntilReleased(lockKey, holder, released)
      : pingUntilReleased(lockKey, holder, released),
  );
}
