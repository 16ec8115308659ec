// Per-iteration service locks of a foreach. A run locks the services it can name from its inputs
// before its first step (locks.ts); the services a foreach reaches per item (stop-dev-services'
// service.stop of each listed service) are only known once the items are. So each iteration locks
// the services its own steps change and can name from the item, before its first step, and
// releases them when it ends.
//
// No deadlock: an iteration takes its keys in sorted order and holds nothing else of its own
// while it waits, so lanes and concurrent runs never wait in a cycle. (A run that also holds
// run-wide locks can still cross another such run; runbooks that lock both ways are rare and
// would need their run-wide keys merged into the same order.)
//
// One run holds a lock workflow's key once: lock workflows know runs by workflow id, not lanes.
// Lanes of one run that need the same service (the same item twice) queue here first, in the
// run, and the key is handed from lane to lane without a release and a new request in between.
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  workflowInfo,
} from '@temporalio/workflow';
import type { StepDefinition } from '../dsl/definition';
import { ACTIVITY_POLICIES } from './activity-policies';
import type { Scope } from './interpreter';
import { lockWorkflowId, releaseLockSignal } from '../contract/lock-messages';
import { awaitLock, callLockKey, isLockedCall, lockGrants, lockScope, requestLock } from './locks';

/**
 * The services an iteration changes and can name before its first step (from the item, the
 * inputs and earlier steps), minus those the run holds already; sorted.
 */
export function iterationLockKeys(
  body: StepDefinition[],
  vars: Record<string, unknown>,
  held: readonly string[],
): string[] {
  const keys = new Set<string>();
  // Nested foreach bodies lock per their own items; child runbooks lock for themselves.
  for (const step of lockScope(body)) {
    if (!isLockedCall(step)) continue;
    const key = callLockKey(step, vars);
    if (key !== undefined && !held.includes(key)) keys.add(key);
  }
  return [...keys].sort();
}

/** Keys held for an iteration's scope (and the scopes inside it), for child runbooks' heldLocks. */
const heldByScope = new WeakMap<Scope, readonly string[]>();

export function locksHeldFor(scope: Scope): readonly string[] {
  return heldByScope.get(scope) ?? [];
}

export function holdLocksFor(scope: Scope, keys: readonly string[]): void {
  heldByScope.set(scope, keys);
}

interface KeyQueue {
  /** Tickets of the lanes that want the key; the first holds it. */
  tickets: number[];
  /** Asked of the lock workflow (and maybe granted), on behalf of whichever lane is first. */
  requested: boolean;
}

/** The run's queues per key; module state is per workflow execution in the sandbox. */
const queues = new Map<string, KeyQueue>();
let nextTicket = 0;

/** A request that has signalled or started a lock must be known to have done so: it is released. */
const ITERATION_LOCK_POLICY = {
  ...ACTIVITY_POLICIES.read,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};

async function takeKey(key: string, ticket: number, queue: KeyQueue): Promise<void> {
  await condition(() => queue.tickets[0] === ticket);
  // Handed over from another lane of this run, the key is held or asked for already.
  if (!queue.requested) {
    queue.requested = true;
    await CancellationScope.nonCancellable(() => requestLock(key, ITERATION_LOCK_POLICY));
  }
  await awaitLock(key);
}

async function giveBack(key: string, ticket: number): Promise<void> {
  const queue = queues.get(key);
  if (queue === undefined) return;
  const at = queue.tickets.indexOf(ticket);
  if (at === -1) return;
  queue.tickets.splice(at, 1);
  // The next lane of this run takes the key over as it is (held or still asked for).
  if (at > 0 || queue.tickets.length > 0) return;
  queues.delete(key);
  if (!queue.requested) return;
  lockGrants().delete(key);
  try {
    const requesterId = workflowInfo().workflowId;
    await getExternalWorkflowHandle(lockWorkflowId(key)).signal(releaseLockSignal, { key, requesterId });
  } catch {
    // The lock workflow ended already.
  }
}

/**
 * Runs `body` holding the keys (taken in the given, sorted order) and gives them back when it
 * ends, however it ends; the release is not interrupted by a cancellation of the run.
 */
export async function withIterationLocks<T>(keys: readonly string[], body: () => Promise<T>): Promise<T> {
  const taken: Array<[string, number]> = [];
  try {
    for (const key of keys) {
      let queue = queues.get(key);
      if (queue === undefined) {
        queue = { tickets: [], requested: false };
        queues.set(key, queue);
      }
      const ticket = nextTicket++;
      queue.tickets.push(ticket);
      taken.push([key, ticket]);
      await takeKey(key, ticket, queue);
    }
    return await body();
  } finally {
    await CancellationScope.nonCancellable(async () => {
      for (const [key, ticket] of taken.reverse()) await giveBack(key, ticket);
    });
  }
}
