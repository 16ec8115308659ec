// Per-service locks for a run: before its first step, a run that will change a service it can name
// from its inputs queues on that service's lock workflow, so two runs never change one service at
// the same time. Locks are taken in sorted order (no deadlock) and released when the run ends.
import {
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { LockActivities } from '../activities/lock-activities';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { resolveTemplates } from '../dsl/templates';
import { ACTIVITY_POLICIES } from './activity-policies';
import { lockGrantedSignal, lockPingSignal, lockWorkflowId, releaseLockSignal } from './lock-messages';

const LOCKED_GROUPS = ['service.', 'replicaSet.'];

function* lockableSteps(steps: StepDefinition[]): Generator<StepDefinition> {
  for (const step of steps) {
    yield step;
    yield* lockableSteps(step.compensate);
    if (step.kind === 'parallel') for (const branch of step.branches) yield* lockableSteps(branch.steps);
    // foreach bodies and child runbooks name their services at run time (or lock them themselves).
  }
}

/**
 * The services this run will change and can name up front: mutating calls whose `project_id` and
 * `service_id` depend only on the inputs. A service the run creates itself needs no lock.
 */
export function lockKeys(definition: RunbookDefinition, inputs: Record<string, JsonValue>): string[] {
  const keys = new Set<string>();
  for (const step of lockableSteps(definition.steps)) {
    if (step.kind !== 'call' || step.actionKind === 'read' || step.actionKind === 'create') continue;
    if (!LOCKED_GROUPS.some((group) => step.action.startsWith(group))) continue;
    try {
      const resolved = resolveTemplates(
        { project_id: step.with.project_id, service_id: step.with.service_id },
        {
          inputs,
          steps: {},
        },
      ) as Record<string, JsonValue>;
      const { project_id: project, service_id: service } = resolved;
      if (typeof project === 'string' && typeof service === 'string')
        keys.add(`service/${project}/${service}`);
    } catch {
      // Depends on step outputs: not known before the run.
    }
  }
  return [...keys].sort();
}

export class RunLocks {
  private readonly granted = new Set<string>();
  private readonly requested: string[] = [];
  /** The lock being waited for, for the progress query. */
  waitingFor: string | undefined;

  constructor() {
    setHandler(lockGrantedSignal, ({ key }) => void this.granted.add(key));
    setHandler(lockPingSignal, () => undefined);
  }

  get held(): string[] {
    return this.requested.filter((key) => this.granted.has(key));
  }

  async acquire(keys: string[]): Promise<void> {
    const { 'lock.request': request } = proxyActivities<LockActivities>(ACTIVITY_POLICIES.read);
    const requesterId = workflowInfo().workflowId;
    for (const key of keys) {
      this.waitingFor = key;
      this.requested.push(key);
      await request({ key, requesterId });
      await condition(() => this.granted.has(key));
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
    }
    this.requested.length = 0;
  }
}
