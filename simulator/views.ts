// Records → API response bodies, shaped like the models in cloud/models.ts.
import type { Peering, ReadReplicaSet, Service, Vpc } from '../cloud/models';
import type { PeeringRecord, ReplicaSetRecord, ServiceRecord, VpcRecord } from './state';

const DOMAIN = 'local-cloud.test';

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
        spec: { cpu_millis: service.cpuMillis, memory_gbs: service.memoryGbs, volume_type: '' },
      },
    ],
    read_replica_sets: service.replicaSets.map((set) => replicaSetView(service, set)),
  };
}
