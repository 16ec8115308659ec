// The Cloud API's resources, as zod schemas; every TypeScript type is inferred from them.
// Answers are read tolerantly (answer-schemas.ts): every field is optional (spec.md §2), unknown
// fields are dropped, null reads as absent, enums are open, and renamed fields are read under both
// names. The closed enums below are what tideline itself sends and what the local cloud holds.
import { z } from 'zod';
import { answerObject, openEnum } from './answer-schemas';

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

/** A time-series (TimescaleDB) service: `TIMESCALEDB` in the API's current dialect, `NEUTRALDB` in spec.md. */
export const TIME_SERIES_TYPES = ['TIMESCALEDB', 'NEUTRALDB'] as const;

export const ServiceType = z.enum([...TIME_SERIES_TYPES, 'POSTGRES', 'VECTOR']);
export type ServiceType = z.infer<typeof ServiceType>;

export const ReplicaSetStatus = z.enum(['creating', 'active', 'resizing', 'deleting', 'error']);
export type ReplicaSetStatus = z.infer<typeof ReplicaSetStatus>;

const OpenServiceStatus = openEnum('service status', ServiceStatus);
const OpenServiceType = openEnum('service type', ServiceType);
const OpenReplicaSetStatus = openEnum('replica set status', ReplicaSetStatus);

export const Project = answerObject({ id: z.string(), name: z.string() });
export type Project = z.infer<typeof Project>;

const VpcFields = {
  id: z.string().optional(),
  cidr: z.string().optional(),
  name: z.string().optional(),
  region_code: z.string().optional(),
};

export const Vpc = answerObject(VpcFields);
export type Vpc = z.infer<typeof Vpc>;

export const Peering = answerObject({
  id: z.string().optional(),
  error_message: z.string().optional(),
  peer_account_id: z.string().optional(),
  peer_region_code: z.string().optional(),
  peer_vpc_id: z.string().optional(),
  provisioned_id: z.string().optional(),
  status: z.string().optional(),
});
export type Peering = z.infer<typeof Peering>;

export const Endpoint = answerObject({ host: z.string().optional(), port: z.number().optional() });
export type Endpoint = z.infer<typeof Endpoint>;

export const ConnectionPooler = answerObject({ endpoint: Endpoint.optional() });
export type ConnectionPooler = z.infer<typeof ConnectionPooler>;

export const VpcEndpoint = answerObject({
  host: z.string().optional(),
  port: z.number().optional(),
  vpc_id: z.string().optional(),
});
export type VpcEndpoint = z.infer<typeof VpcEndpoint>;

const EnvironmentMetadata = answerObject({ environment: z.string().optional() });

export const ReadReplicaSet = answerObject({
  id: z.string().optional(),
  name: z.string().optional(),
  nodes: z.number().optional(),
  cpu_millis: z.number().optional(),
  memory_gbs: z.number().optional(),
  endpoint: Endpoint.optional(),
  connection_pooler: ConnectionPooler.optional(),
  metadata: EnvironmentMetadata.optional(),
  status: OpenReplicaSetStatus.optional(),
});
export type ReadReplicaSet = z.infer<typeof ReadReplicaSet>;

/** CPU and memory are null for a shared-resource (free) service; the vendor's client reads null as "shared". */
export const ResourceSpec = answerObject({
  cpu_millis: z.number().nullish(),
  memory_gbs: z.number().nullish(),
  volume_type: z.string().optional(),
});

/** Usage figures; the current dialect sends `metrics: null`, and null inside it, when unknown. */
export const ServiceMetrics = answerObject({
  memory_mb: z.number().optional(),
  milli_cpu: z.number().optional(),
  storage_mb: z.number().optional(),
});

/**
 * A service. `vpc_endpoint` is the current name of spec.md's `vpcEndpoint`; an answer carrying
 * either is read with both filled, so runbooks may read either name.
 */
export const Service = answerObject(
  {
    service_id: z.string().optional(),
    project_id: z.string().optional(),
    name: z.string().optional(),
    region_code: z.string().optional(),
    service_type: OpenServiceType.optional(),
    created: z.iso.datetime({ offset: true }).optional(),
    paused: z.boolean().optional(),
    status: OpenServiceStatus.optional(),
    endpoint: Endpoint.optional(),
    connection_pooler: ConnectionPooler.optional(),
    vpc_endpoint: VpcEndpoint.optional(),
    vpcEndpoint: VpcEndpoint.optional(),
    forked_from: answerObject({
      is_standby: z.boolean().optional(),
      project_id: z.string().optional(),
      service_id: z.string().optional(),
    }).optional(),
    ha_replicas: answerObject({
      replica_count: z.number().optional(),
      sync_replica_count: z.number().optional(),
    }).optional(),
    initial_password: z.string().optional(),
    metadata: EnvironmentMetadata.optional(),
    metrics: ServiceMetrics.optional(),
    resources: z.array(answerObject({ id: z.string().optional(), spec: ResourceSpec.optional() })).optional(),
    read_replica_sets: z.array(ReadReplicaSet).optional(),
  },
  [['vpc_endpoint', 'vpcEndpoint']],
);
export type Service = z.infer<typeof Service>;

export const MessageResponse = answerObject({ message: z.string().optional() });
export type MessageResponse = z.infer<typeof MessageResponse>;

/**
 * What `vpc.rename` answers: the VPC in spec.md's dialect, `{message}` in the current one. The
 * activity reads the VPC back when only a message came, so the step's output is the VPC either way.
 */
export const VpcRenameResponse = answerObject({ ...VpcFields, message: z.string().optional() });
export type VpcRenameResponse = z.infer<typeof VpcRenameResponse>;

export const LogEntry = answerObject({
  message: z.string(),
  severity: z.string(),
  timestamp: z.iso.datetime({ offset: true }),
});
export type LogEntry = z.infer<typeof LogEntry>;

/**
 * One page of logs. `last_cursor` is the current name of spec.md's `lastCursor` (read under both);
 * `logs` is the legacy list of messages, absent or null in newer answers.
 */
export const ServiceLogsResponse = answerObject(
  {
    logs: z.array(z.string()).optional(),
    entries: z.array(LogEntry).optional(),
    last_cursor: z.string().optional(),
    lastCursor: z.string().optional(),
  },
  [['last_cursor', 'lastCursor']],
);
export type ServiceLogsResponse = z.infer<typeof ServiceLogsResponse>;

/** The names of the metric series a service has (preview operation; e.g. `timescale_cloud_system_cpu_usage_millicores`). */
export const MetricSeriesNames = z.array(z.string());
export type MetricSeriesNames = z.infer<typeof MetricSeriesNames>;

/**
 * One bucket of a metric series: its start and aggregated value. The vendor's first document leaves
 * a bucket without data out; the current one sends it with `value: null`, read here as absent.
 */
export const MetricDataPoint = answerObject({
  time: z.iso.datetime({ offset: true }),
  value: z.number().optional(),
});
export type MetricDataPoint = z.infer<typeof MetricDataPoint>;

/**
 * One labelled series (e.g. `{role: "primary"}`) and its data points, one per bucket. Both are
 * required in the vendor's document, but its Go types send a nil map or slice as null: read as absent.
 */
export const MetricSeries = answerObject({
  labels: z.record(z.string(), z.string()).optional(),
  data: z.array(MetricDataPoint).optional(),
});
export type MetricSeries = z.infer<typeof MetricSeries>;

const AuthInfoApiKey = answerObject({
  public_key: z.string(),
  name: z.string(),
  created: z.iso.datetime({ offset: true }),
  project: answerObject({ id: z.string(), name: z.string(), plan_type: z.string() }),
  issuing_user: answerObject({ id: z.string(), name: z.string(), email: z.string() }),
});

/**
 * Who a key pair is (`GET /auth/info`). The vendor's OpenAPI: `type` discriminates; exactly one of
 * the key's details (`api_key`, formerly `apiKey`; read under both) or `oauth` is present.
 */
export const AuthInfo = answerObject(
  {
    type: openEnum('credential type', z.enum(['apiKey', 'oauth'])),
    api_key: AuthInfoApiKey.optional(),
    apiKey: AuthInfoApiKey.optional(),
    oauth: answerObject({
      user: answerObject({ id: z.string(), name: z.string(), email: z.string() }),
    }).optional(),
  },
  [['api_key', 'apiKey']],
);
export type AuthInfo = z.infer<typeof AuthInfo>;

/** The error body of the API: `{"code": "...", "message": "..."}` (behaviour.md, Errors). */
export const ApiErrorBody = z.object({ code: z.string(), message: z.string() });
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;
