// Per-service locks for a run: before its first step, a run that will change a service it can name
// from its inputs queues on that service's lock workflow, so two runs never change one service at
// the same time. Locks are taken in sorted order (no deadlock) and released when the run ends.
// Services a foreach reaches per item are locked per iteration (foreach-locks.ts).
import {
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { LockActivities } from '../activities/lock-activities';
import { RESOURCES, resourceOf } from '../cloud/resources';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { stepTree } from '../dsl/step-tree';
import { resolveTemplates } from '../dsl/templates';
import { ACTIVITY_POLICIES } from './activity-policies';
import {
  lockGrantedSignal,
  lockPingSignal,
  lockWorkflowId,
  releaseLockSignal,
} from '../contract/lock-messages';
import type { LockWait } from '../contract/run-messages';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';

/**
 * The steps whose services a lock taken before `steps` run covers: these, their branches' and their
 * compensations'. Not foreach bodies (they lock per item, foreach-locks.ts) nor child runbooks
 * (they lock for themselves).
 */
export function lockScope(steps: readonly StepDefinition[]): StepDefinition[] {
  return stepTree(steps, { foreach: false }).map(({ step }) => step);
}

/**
 * The services this run will change and can name up front: mutating calls whose `project_id` and
 * `service_id` depend only on the inputs. A service the run creates itself needs no lock.
 */
export function lockKeys(definition: RunbookDefinition, inputs: Record<string, JsonValue>): string[] {
  const keys = new Set<string>();
  for (const step of lockScope(definition.steps)) {
    if (!isLockedCall(step)) continue;
    // Depends on step outputs when it does not resolve: not known before the run.
    const key = callLockKey(step, { inputs, steps: {} });
    if (key !== undefined) keys.add(key);
  }
  return [...keys].sort();
}

/** The mutating calls whose service a lock protects: not reads, not creates. */
export function isLockedCall(step: StepDefinition): step is Extract<StepDefinition, { kind: 'call' }> {
  if (step.kind !== 'call' || step.actionKind === 'read' || step.actionKind === 'create') return false;
  // The resource's lock group (cloud/resources.ts): a service's changes and its replica sets'.
  const resource = resourceOf(step.action);
  return resource !== undefined && RESOURCES[resource].lock === 'service';
}

/** The lock key of a call's service, when its `project_id` and `service_id` resolve from `vars`. */
export function callLockKey(
  step: Extract<StepDefinition, { kind: 'call' }>,
  vars: Record<string, unknown>,
): string | undefined {
  try {
    const resolved = resolveTemplates(
      { project_id: step.with.project_id, service_id: step.with.service_id },
      vars,
    ) as Record<string, JsonValue>;
    const { project_id: project, service_id: service } = resolved;
    if (typeof project === 'string' && typeof service === 'string') return `service/${project}/${service}`;
  } catch {
    // Depends on what is not known yet (a step output).
  }
  return undefined;
}

/**
 * The lock keys granted to this run (by lock workflows, through a signal). One set per workflow:
 * a signal has one handler, and the run-wide locks and the per-iteration locks of a foreach share
 * it. Module state is per workflow execution in Temporal's workflow sandbox.
 */
let grantedKeys: Set<string> | undefined;

export function lockGrants(): Set<string> {
  if (grantedKeys === undefined) {
    const granted = new Set<string>();
    setHandler(lockGrantedSignal, ({ key }) => void granted.add(key));
    setHandler(lockPingSignal, () => undefined);
    grantedKeys = granted;
  }
  return grantedKeys;
}

/**
 * When this run requested and got its run-wide locks (workflow clock: reading it issues no
 * command, so replay is unaffected). Module state, per workflow execution like `grantedKeys`; the
 * progress reads it (run-state.ts) without the workflow having to pass it along.
 */
let lockWaitLog: LockWait[] | undefined;

export function lockWaits(): readonly LockWait[] {
  return lockWaitLog ?? [];
}

/** Whether this run takes its locks with `lock.take` (module state: per workflow execution). */
let takesLocksHeld = false;

/**
 * Asked once at the start of a run (also of a foreach batch), before any local activity
 * (local-calls.ts says why a patch first asked later fails the replay): whether its locks start
 * held. Only a run whose steps change a service it would lock asks (and records the patch).
 */
export function locksStartHeldAtStart(steps: readonly StepDefinition[]): void {
  takesLocksHeld = stepTree(steps).some(({ step }) => isLockedCall(step)) && hasPatch(PATCHES.locksStartHeld);
}

/**
 * Asks the key's lock workflow for the lock on behalf of this run; `awaitLock` then waits until the
 * run holds it. `policy`: the request's activity options.
 */
export async function requestLock(
  key: string,
  policy: ActivityOptions = ACTIVITY_POLICIES.read,
): Promise<void> {
  const requesterId = workflowInfo().workflowId;
  const activities = proxyActivities<LockActivities>(policy);
  if (!takesLocksHeld) {
    await activities['lock.request']({ key, requesterId });
    return;
  }
  if ((await activities['lock.take']({ key, requesterId })) === 'held') lockGrants().add(key);
}

/** Until this run holds the key (granted by its lock workflow, or held from the lock's start). */
export async function awaitLock(key: string): Promise<void> {
  const granted = lockGrants();
  await condition(() => granted.has(key));
}

export class RunLocks {
  private readonly granted = lockGrants();
  private readonly requested: string[] = [];
  /** The lock being waited for, for the progress query. */
  waitingFor: string | undefined;

  get held(): string[] {
    return this.requested.filter((key) => this.granted.has(key));
  }

  async acquire(keys: string[]): Promise<void> {
    for (const key of keys) {
      this.waitingFor = key;
      this.requested.push(key);
      const wait: LockWait = { key, requestedAt: Date.now() };
      (lockWaitLog ??= []).push(wait);
      await requestLock(key);
      await awaitLock(key);
      wait.acquiredAt = Date.now();
    }
    this.waitingFor = undefined;
  }

  /** Releases held locks and withdraws queued requests; a lock that is already gone is fine. */
  async release(): Promise<void> {
    const requesterId = workflowInfo().workflowId;
    for (const key of [...this.requested].reverse()) {
      try {
        await getExternalWorkflowHandle(lockWorkflowId(key)).signal(releaseLockSignal, { key, requesterId });
      } catch {
        // The lock workflow ended already.
      }
      this.granted.delete(key);
    }
    this.requested.length = 0;
  }
}
