// Records → API response bodies, shaped like the models in cloud/models.ts.
import type { Peering, ReadReplicaSet, ReplicaSetStatus, Service, ServiceStatus, Vpc } from '../cloud/models';
import type { PeeringRecord, ReplicaSetRecord, ServiceRecord, VpcRecord } from './state';

const DOMAIN = 'local-cloud.test';

/**
 * How a `"shared"` size is stored: 250 millicores / 1 GB, a pair no numeric size uses. The API shows
 * a shared service's `resources[].spec` sizes as null (the vendor's client reads null as "shared").
 */
export const SHARED_SIZE = { cpuMillis: 250, memoryGbs: 1 } as const;

function isShared(size: { cpuMillis: number; memoryGbs: number }): boolean {
  return size.cpuMillis === SHARED_SIZE.cpuMillis && size.memoryGbs === SHARED_SIZE.memoryGbs;
}

export function vpcView(vpc: VpcRecord): Vpc {
  return { id: vpc.id, name: vpc.name, cidr: vpc.cidr, region_code: vpc.regionCode };
}

export function peeringView(peering: PeeringRecord): Peering {
  return {
    id: peering.id,
    peer_account_id: peering.peerAccountId,
    peer_region_code: peering.peerRegionCode,
    peer_vpc_id: peering.peerVpcId,
    status: peering.status,
    ...(peering.provisionedId !== null ? { provisioned_id: peering.provisionedId } : {}),
    ...(peering.errorMessage !== null ? { error_message: peering.errorMessage } : {}),
  };
}

export function replicaSetView(service: ServiceRecord, set: ReplicaSetRecord): ReadReplicaSet {
  const host = `${set.id}.${service.id}.${service.projectId}.replica.${DOMAIN}`;
  return {
    id: set.id,
    name: set.name,
    nodes: set.nodes,
    cpu_millis: set.cpuMillis,
    memory_gbs: set.memoryGbs,
    endpoint: { host, port: set.port },
    connection_pooler: set.poolerEnabled
      ? { endpoint: { host: `pooler-${host}`, port: set.poolerPort } }
      : {},
    metadata: { environment: set.environment },
    status: set.status,
  };
}

/** A service as the API shows it; `initialPassword` only in create and fork answers. */
export function serviceView(service: ServiceRecord, initialPassword?: string): Service {
  const host = `${service.id}.${service.projectId}.db.${DOMAIN}`;
  return {
    service_id: service.id,
    project_id: service.projectId,
    name: service.name,
    region_code: service.regionCode,
    service_type: service.serviceType,
    created: service.created,
    paused: service.status === 'PAUSED',
    status: service.status,
    endpoint: { host, port: service.port },
    connection_pooler: service.poolerEnabled
      ? {
          endpoint: { host: `${service.id}.${service.projectId}.pooler.${DOMAIN}`, port: service.poolerPort },
        }
      : {},
    ...(service.vpcId !== null
      ? {
          vpcEndpoint: {
            host: `${service.id}.${service.projectId}.vpc-${service.vpcId}.private.${DOMAIN}`,
            port: service.vpcPort,
            vpc_id: service.vpcId,
          },
        }
      : {}),
    ...(service.forkedFrom
      ? {
          forked_from: {
            is_standby: false,
            project_id: service.forkedFrom.projectId,
            service_id: service.forkedFrom.serviceId,
          },
        }
      : {}),
    ha_replicas: { replica_count: service.haReplicas, sync_replica_count: service.syncReplicas },
    ...(initialPassword !== undefined ? { initial_password: initialPassword } : {}),
    metadata: { environment: service.environment },
    metrics: {
      milli_cpu: Math.round(service.cpuMillis * service.usage.cpuShare),
      memory_mb: Math.round(service.memoryGbs * 1024 * service.usage.memoryShare),
      storage_mb: service.usage.storageMb,
    },
    resources: [
      {
        id: service.resourceId,
        spec: isShared(service)
          ? { cpu_millis: null, memory_gbs: null, volume_type: '' }
          : { cpu_millis: service.cpuMillis, memory_gbs: service.memoryGbs, volume_type: '' },
      },
    ],
    read_replica_sets: service.replicaSets.map((set) => replicaSetView(service, set)),
  };
}

/** A replica set's status in the service status vocabulary (the local cloud's mapping). */
const STANDBY_STATUS: Record<ReplicaSetStatus, ServiceStatus> = {
  creating: 'QUEUED',
  active: 'READY',
  resizing: 'CONFIGURING',
  deleting: 'DELETING',
  error: 'UNSTABLE',
};

/**
 * A read replica set fetched by its id under `/services/{id}`: a service with the set's id, name,
 * endpoints, size and environment, whose `forked_from` names the primary with `is_standby: true`.
 */
export function standbyServiceView(primary: ServiceRecord, set: ReplicaSetRecord): Service {
  const replica = replicaSetView(primary, set);
  return {
    service_id: set.id,
    project_id: primary.projectId,
    name: set.name,
    region_code: primary.regionCode,
    service_type: primary.serviceType,
    paused: false,
    // The set's own creation time; the primary's for a set kept before that was recorded.
    created: set.created ?? primary.created,
    status: STANDBY_STATUS[set.status],
    ...(replica.endpoint ? { endpoint: replica.endpoint } : {}),
    ...(replica.connection_pooler ? { connection_pooler: replica.connection_pooler } : {}),
    forked_from: { is_standby: true, project_id: primary.projectId, service_id: primary.id },
    metadata: { environment: set.environment },
    resources: [
      { id: set.id, spec: { cpu_millis: set.cpuMillis, memory_gbs: set.memoryGbs, volume_type: '' } },
    ],
  };
}
