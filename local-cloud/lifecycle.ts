// Lifecycles: planning a transition as timestamped steps, and advancing a record to "now".
// Nothing runs on timers; a record moves only when it is read, from its stored timestamps.
import type { ServiceStatus } from '../cloud/models';
import type { DurationName, Durations } from './config';
import type { PeeringRecord, ReplicaSetRecord, ServiceEffect, ServiceRecord, ServiceStep } from './state';

/** Statuses in which a service accepts configuration changes. UNSTABLE is up but degraded. */
export const SETTLED_RUNNING: readonly ServiceStatus[] = ['READY', 'UNSTABLE'];

export class Pace {
  constructor(
    private readonly durations: Durations,
    private readonly timeScale: number,
  ) {}

  /** A transition's duration in real milliseconds. */
  of(name: DurationName): number {
    return Math.round(this.durations[name] * this.timeScale);
  }
}

/** Steps of a new service (create or fork): QUEUED → CONFIGURING → READY (or a scripted end). */
export function planProvisioning(
  now: number,
  pace: Pace,
  outcome: 'stuckQueued' | 'unstable' | undefined,
): ServiceStep[] {
  if (outcome === 'stuckQueued') return [];
  const configuringAt = now + pace.of('queued');
  return [
    { at: configuringAt, status: 'CONFIGURING' },
    { at: configuringAt + pace.of('configuring'), status: outcome === 'unstable' ? 'UNSTABLE' : 'READY' },
  ];
}

/**
 * Puts a running service into CONFIGURING for a change that completes after `duration`.
 * A scripted `unstable` outcome ends the change in UNSTABLE without its effect.
 */
export function startChange(
  service: ServiceRecord,
  now: number,
  duration: number,
  effect: ServiceEffect,
  unstable: boolean,
): void {
  service.status = 'CONFIGURING';
  service.steps = [
    unstable ? { at: now + duration, status: 'UNSTABLE' } : { at: now + duration, status: 'READY', effect },
  ];
}

/** Starts a plain status transition (stop, start, delete) ending in `end` after `duration`. */
export function startTransition(
  service: ServiceRecord,
  now: number,
  through: ServiceStatus,
  end: ServiceStatus,
  duration: number,
  effect?: ServiceEffect,
): void {
  service.status = through;
  service.steps = [{ at: now + duration, status: end, ...(effect ? { effect } : {}) }];
}

function applyServiceEffect(service: ServiceRecord, effect: ServiceEffect): void {
  switch (effect.kind) {
    case 'resize':
      service.cpuMillis = effect.cpuMillis;
      service.memoryGbs = effect.memoryGbs;
      return;
    case 'ha':
      service.haReplicas = effect.replicaCount;
      service.syncReplicas = effect.syncReplicaCount;
      return;
    case 'attach':
      service.vpcId = effect.vpcId;
      return;
    case 'detach':
      service.vpcId = null;
      return;
    case 'pooler':
      service.poolerEnabled = effect.enabled;
      return;
    case 'remove':
      return;
  }
}

/** Applies every step that is due. Returns `removed` when the service's deletion completed. */
export function advanceService(service: ServiceRecord, now: number): 'present' | 'removed' {
  while (service.steps.length > 0 && service.steps[0]!.at <= now) {
    const step = service.steps.shift()!;
    if (step.effect?.kind === 'remove') return 'removed';
    service.status = step.status;
    if (step.effect) applyServiceEffect(service, step.effect);
    if (step.status === 'READY' && service.firstReadyAt === null) service.firstReadyAt = step.at;
  }
  advanceReplicaSets(service, now);
  return 'present';
}

function advanceReplicaSets(service: ServiceRecord, now: number): void {
  service.replicaSets = service.replicaSets.filter((set) => advanceReplicaSet(set, now) === 'present');
}

function advanceReplicaSet(set: ReplicaSetRecord, now: number): 'present' | 'removed' {
  while (set.steps.length > 0 && set.steps[0]!.at <= now) {
    const step = set.steps.shift()!;
    if (step.effect?.kind === 'remove') return 'removed';
    set.status = step.status;
    if (step.effect?.kind === 'resize') {
      set.cpuMillis = step.effect.cpuMillis;
      set.memoryGbs = step.effect.memoryGbs;
    }
  }
  return 'present';
}

export function advancePeering(peering: PeeringRecord, now: number): void {
  while (peering.steps.length > 0 && peering.steps[0]!.at <= now) {
    const step = peering.steps.shift()!;
    peering.status = step.status;
    if (step.errorMessage !== undefined) peering.errorMessage = step.errorMessage;
    if (step.provisionedId !== undefined) peering.provisionedId = step.provisionedId;
  }
}

/** Whether the service has had a snapshot taken (needed by LAST_SNAPSHOT forks and read replicas). */
export function hasSnapshot(service: ServiceRecord, now: number, pace: Pace): boolean {
  return service.firstReadyAt !== null && now >= service.firstReadyAt + pace.of('firstSnapshot');
}

/** The VPC the service is attached to or is being attached to. */
export function attachedOrAttachingVpc(service: ServiceRecord): string | null {
  const pending = service.steps.find((step) => step.effect?.kind === 'attach');
  if (pending?.effect?.kind === 'attach') return pending.effect.vpcId;
  return service.vpcId;
}
