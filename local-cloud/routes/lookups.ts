// Finding the resources a path names; unknown ones answer 404.
import type { ServiceStatus } from '../../cloud/models';
import { conflict, notFound } from '../errors';
import { SETTLED_RUNNING } from '../lifecycle';
import type { PeeringRecord, ReplicaSetRecord, ServiceRecord, VpcRecord } from '../state';
import type { World } from '../world';

export function requireService(world: World, projectId: string, serviceId: string): ServiceRecord {
  const service = world.store.service(projectId, serviceId);
  if (!service) throw notFound(`service ${serviceId} not found`);
  return service;
}

export function requireVpc(world: World, projectId: string, vpcId: string): VpcRecord {
  const vpc = world.store.vpc(projectId, vpcId);
  if (!vpc) throw notFound(`vpc ${vpcId} not found`);
  return vpc;
}

export function requirePeering(vpc: VpcRecord, peeringId: string): PeeringRecord {
  const peering = vpc.peerings.find((candidate) => candidate.id === peeringId);
  if (!peering) throw notFound(`peering ${peeringId} not found in vpc ${vpc.id}`);
  return peering;
}

export function requireReplicaSet(service: ServiceRecord, replicaSetId: string): ReplicaSetRecord {
  const set = service.replicaSets.find((candidate) => candidate.id === replicaSetId);
  if (!set) throw notFound(`replica set ${replicaSetId} not found in service ${service.id}`);
  return set;
}

/** The read replica set with this id among the project's services, with its primary. */
export function findReplicaSet(
  world: World,
  projectId: string,
  replicaSetId: string,
): { primary: ServiceRecord; set: ReplicaSetRecord } | undefined {
  for (const primary of world.store.services(projectId)) {
    const set = primary.replicaSets.find((candidate) => candidate.id === replicaSetId);
    if (set) return { primary, set };
  }
  return undefined;
}

/** 409 unless the service is running and idle (READY, or UNSTABLE which still accepts changes). */
export function requireRunningIdle(service: ServiceRecord): void {
  if (SETTLED_RUNNING.includes(service.status)) return;
  throw conflict(busyMessage(service.id, service.status));
}

export function busyMessage(serviceId: string, status: ServiceStatus): string {
  if (status === 'PAUSED') return `service ${serviceId} is PAUSED; start it before changing it`;
  if (status === 'DELETING') return `service ${serviceId} is being deleted`;
  return `service ${serviceId} is ${status}; another change is in progress, retry when it is READY`;
}
