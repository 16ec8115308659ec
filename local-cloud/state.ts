// The local cloud's stored records. Schemas first: the persisted state file is validated with
// them on load, and the record types are inferred from them. Times are epoch milliseconds.
//
// A resource in transition keeps its future as `steps`: timestamped statuses (and effects applied
// when reached). Reads advance the record lazily to the clock's now, so thousands of resources
// cost nothing while idle and a restored state file resumes where it stopped.
import { z } from 'zod';
import { EnvironmentTag, ReplicaSetStatus, ServiceStatus, ServiceType } from '../cloud/models';

export const ProjectRecord = z.object({
  id: z.string(),
  name: z.string(),
  access_key: z.string(),
  secret_key: z.string(),
  /** Accepted as `Authorization: Bearer …` besides the key pair (config `bearer_token`). */
  bearer_token: z.string().optional(),
});
export type ProjectRecord = z.infer<typeof ProjectRecord>;

/** What a service change does once its transition completes. */
export const ServiceEffect = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('resize'), cpuMillis: z.number(), memoryGbs: z.number() }),
  z.object({ kind: z.literal('ha'), replicaCount: z.number(), syncReplicaCount: z.number() }),
  z.object({ kind: z.literal('attach'), vpcId: z.string() }),
  z.object({ kind: z.literal('detach') }),
  z.object({ kind: z.literal('pooler'), enabled: z.boolean() }),
  z.object({ kind: z.literal('remove') }),
]);
export type ServiceEffect = z.infer<typeof ServiceEffect>;

const ServiceStep = z.object({ at: z.number(), status: ServiceStatus, effect: ServiceEffect.optional() });
export type ServiceStep = z.infer<typeof ServiceStep>;

export const ReplicaSetEffect = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('resize'), cpuMillis: z.number(), memoryGbs: z.number() }),
  z.object({ kind: z.literal('remove') }),
]);
export type ReplicaSetEffect = z.infer<typeof ReplicaSetEffect>;

export const ReplicaSetRecord = z.object({
  id: z.string(),
  name: z.string(),
  nodes: z.number(),
  cpuMillis: z.number(),
  memoryGbs: z.number(),
  environment: EnvironmentTag,
  poolerEnabled: z.boolean(),
  port: z.number(),
  poolerPort: z.number(),
  status: ReplicaSetStatus,
  steps: z.array(z.object({ at: z.number(), status: ReplicaSetStatus, effect: ReplicaSetEffect.optional() })),
  /** When it was created (RFC 3339); absent in state files written before it was kept. */
  created: z.string().optional(),
});
export type ReplicaSetRecord = z.infer<typeof ReplicaSetRecord>;

export const ServiceRecord = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  regionCode: z.string(),
  serviceType: ServiceType,
  /** RFC 3339 with microseconds, as the real API shows it. */
  created: z.string(),
  createdAt: z.number(),
  status: ServiceStatus,
  steps: z.array(ServiceStep),
  resourceId: z.string(),
  cpuMillis: z.number(),
  memoryGbs: z.number(),
  haReplicas: z.number(),
  syncReplicas: z.number(),
  environment: EnvironmentTag,
  poolerEnabled: z.boolean(),
  /** The VPC the service is attached to, once the attach completed. */
  vpcId: z.string().nullable(),
  port: z.number(),
  poolerPort: z.number(),
  vpcPort: z.number(),
  forkedFrom: z.object({ projectId: z.string(), serviceId: z.string() }).nullable(),
  /** When the service first became READY; its first snapshot follows `durations.firstSnapshot` later. */
  firstReadyAt: z.number().nullable(),
  /** Fixed usage figures drawn at creation, so metrics look alive but stay deterministic. */
  usage: z.object({ cpuShare: z.number(), memoryShare: z.number(), storageMb: z.number() }),
  passwordChangedAt: z.number().nullable(),
  replicaSets: z.array(ReplicaSetRecord),
});
export type ServiceRecord = z.infer<typeof ServiceRecord>;

export const PeeringStatus = z.enum(['pending', 'active', 'failed']);
export type PeeringStatus = z.infer<typeof PeeringStatus>;

export const PeeringRecord = z.object({
  id: z.string(),
  peerAccountId: z.string(),
  peerRegionCode: z.string(),
  peerVpcId: z.string(),
  status: PeeringStatus,
  errorMessage: z.string().nullable(),
  provisionedId: z.string().nullable(),
  steps: z.array(
    z.object({
      at: z.number(),
      status: PeeringStatus,
      errorMessage: z.string().optional(),
      provisionedId: z.string().optional(),
    }),
  ),
});
export type PeeringRecord = z.infer<typeof PeeringRecord>;

export const VpcRecord = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  cidr: z.string(),
  regionCode: z.string(),
  createdAt: z.number(),
  /** Before this instant the VPC is still provisioning and refuses peerings. */
  readyAt: z.number(),
  peerings: z.array(PeeringRecord),
});
export type VpcRecord = z.infer<typeof VpcRecord>;

export const PersistedState = z.object({
  version: z.literal(1),
  savedAt: z.string(),
  /** The ID generator's position, saved with every change, so a restart never draws an ID again. */
  idRandomState: z.number(),
  /**
   * IDs handed out earlier whose resources are gone, so a chance collision of the generator never
   * gives a deleted resource's ID to a new one either. Older files lack it.
   */
  retiredIds: z.array(z.string()).default([]),
  projects: z.array(ProjectRecord),
  vpcs: z.array(VpcRecord),
  services: z.array(ServiceRecord),
});
export type PersistedState = z.infer<typeof PersistedState>;
