// The Cloud API's resources, as zod schemas; every TypeScript type is inferred from them.
// Response fields are optional (spec.md §2: "All fields of the response models are optional").
// Unknown response fields are stripped, so a newer API that adds fields does not break us.
import { z } from 'zod';

export const EnvironmentTag = z.enum(['DEV', 'PROD']);
export type EnvironmentTag = z.infer<typeof EnvironmentTag>;

export const ServiceStatus = z.enum([
  'QUEUED',
  'DELETING',
  'CONFIGURING',
  'READY',
  'DELETED',
  'UNSTABLE',
  'PAUSING',
  'PAUSED',
  'RESUMING',
  'UPGRADING',
  'OPTIMIZING',
]);
export type ServiceStatus = z.infer<typeof ServiceStatus>;

export const ServiceType = z.enum(['NEUTRALDB', 'POSTGRES', 'VECTOR']);
export type ServiceType = z.infer<typeof ServiceType>;

export const ReplicaSetStatus = z.enum(['creating', 'active', 'resizing', 'deleting', 'error']);
export type ReplicaSetStatus = z.infer<typeof ReplicaSetStatus>;

export const Project = z.object({ id: z.string(), name: z.string() });
export type Project = z.infer<typeof Project>;

export const Vpc = z.object({
  id: z.string().optional(),
  cidr: z.string().optional(),
  name: z.string().optional(),
  region_code: z.string().optional(),
});
export type Vpc = z.infer<typeof Vpc>;

export const Peering = z.object({
  id: z.string().optional(),
  error_message: z.string().optional(),
  peer_account_id: z.string().optional(),
  peer_region_code: z.string().optional(),
  peer_vpc_id: z.string().optional(),
  provisioned_id: z.string().optional(),
  status: z.string().optional(),
});
export type Peering = z.infer<typeof Peering>;

export const Endpoint = z.object({ host: z.string().optional(), port: z.number().optional() });
export type Endpoint = z.infer<typeof Endpoint>;

export const ConnectionPooler = z.object({ endpoint: Endpoint.optional() });
export type ConnectionPooler = z.infer<typeof ConnectionPooler>;

export const VpcEndpoint = Endpoint.extend({ vpc_id: z.string().optional() });
export type VpcEndpoint = z.infer<typeof VpcEndpoint>;

export const ReadReplicaSet = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  nodes: z.number().optional(),
  cpu_millis: z.number().optional(),
  memory_gbs: z.number().optional(),
  endpoint: Endpoint.optional(),
  connection_pooler: ConnectionPooler.optional(),
  metadata: z.object({ environment: z.string().optional() }).optional(),
  status: ReplicaSetStatus.optional(),
});
export type ReadReplicaSet = z.infer<typeof ReadReplicaSet>;

/** CPU and memory are null for a shared-resource (free) service; the vendor's client reads null as "shared". */
export const ResourceSpec = z.object({
  cpu_millis: z.number().nullish(),
  memory_gbs: z.number().nullish(),
  volume_type: z.string().optional(),
});

export const Service = z.object({
  service_id: z.string().optional(),
  project_id: z.string().optional(),
  name: z.string().optional(),
  region_code: z.string().optional(),
  service_type: ServiceType.optional(),
  created: z.iso.datetime({ offset: true }).optional(),
  paused: z.boolean().optional(),
  status: ServiceStatus.optional(),
  endpoint: Endpoint.optional(),
  connection_pooler: ConnectionPooler.optional(),
  vpcEndpoint: VpcEndpoint.optional(),
  forked_from: z
    .object({
      is_standby: z.boolean().optional(),
      project_id: z.string().optional(),
      service_id: z.string().optional(),
    })
    .optional(),
  ha_replicas: z
    .object({ replica_count: z.number().optional(), sync_replica_count: z.number().optional() })
    .optional(),
  initial_password: z.string().optional(),
  metadata: z.object({ environment: z.string().optional() }).optional(),
  metrics: z
    .object({
      memory_mb: z.number().optional(),
      milli_cpu: z.number().optional(),
      storage_mb: z.number().optional(),
    })
    .optional(),
  resources: z.array(z.object({ id: z.string().optional(), spec: ResourceSpec.optional() })).optional(),
  read_replica_sets: z.array(ReadReplicaSet).optional(),
});
export type Service = z.infer<typeof Service>;

export const MessageResponse = z.object({ message: z.string().optional() });
export type MessageResponse = z.infer<typeof MessageResponse>;

export const LogEntry = z.object({
  message: z.string(),
  severity: z.string(),
  timestamp: z.iso.datetime({ offset: true }),
});
export type LogEntry = z.infer<typeof LogEntry>;

export const ServiceLogsResponse = z.object({
  logs: z.array(z.string()),
  entries: z.array(LogEntry).optional(),
  lastCursor: z.string().optional(),
});
export type ServiceLogsResponse = z.infer<typeof ServiceLogsResponse>;

/**
 * Who a key pair is (`GET /auth/info`). The vendor's OpenAPI: `type` discriminates; exactly one of
 * `apiKey` (access-key callers, as here) or `oauth` (browser-login users) is present.
 */
export const AuthInfo = z.object({
  type: z.enum(['apiKey', 'oauth']),
  apiKey: z
    .object({
      public_key: z.string(),
      name: z.string(),
      created: z.iso.datetime({ offset: true }),
      project: z.object({ id: z.string(), name: z.string(), plan_type: z.string() }),
      issuing_user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
    })
    .optional(),
  oauth: z.object({ user: z.object({ id: z.string(), name: z.string(), email: z.string() }) }).optional(),
});
export type AuthInfo = z.infer<typeof AuthInfo>;

/** The error body of the API: `{"code": "...", "message": "..."}` (behaviour.md, Errors). */
export const ApiErrorBody = z.object({ code: z.string(), message: z.string() });
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;
