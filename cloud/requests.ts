// Request bodies and query parameters of the Cloud API, as zod schemas. The rules written here
// (sizes, HA modes, CIDR, PITR) are the API's own (behaviour.md); the local cloud answers 400 with
// the same messages, and the runbook validator checks literal `with` values against them.
import { z } from 'zod';
import { EnvironmentTag, TIME_SERIES_TYPES, type ServiceType } from './models';

/** CPU (millicores) : memory (GB) pairs the API accepts; always 1:4. */
export const ALLOWED_SIZES: ReadonlyArray<readonly [string, string]> = [
  ['500', '2'],
  ['1000', '4'],
  ['2000', '8'],
  ['4000', '16'],
  ['8000', '32'],
  ['16000', '64'],
  ['32000', '128'],
];
const SHARED = 'shared';

const allowedSizeList = ALLOWED_SIZES.map(([cpu, mem]) => `${cpu}/${mem}`).join(', ');

function isAllowedSize(cpu: string, memory: string, allowShared: boolean): boolean {
  if (allowShared && cpu === SHARED && memory === SHARED) return true;
  return ALLOWED_SIZES.some(([c, m]) => c === cpu && m === memory);
}

const digits = (field: string) =>
  z.string().regex(/^[0-9]+$/, `${field} must be a string of digits, e.g. "1000"`);

/** A size given as cpu_millis + memory_gbs strings, checked against the allowed pairs. */
function sizeRule(allowShared: boolean) {
  return (
    value: { cpu_millis?: string | undefined; memory_gbs?: string | undefined },
    ctx: z.RefinementCtx,
  ) => {
    const { cpu_millis: cpu, memory_gbs: memory } = value;
    if (cpu === undefined && memory === undefined) return;
    if (cpu === undefined || memory === undefined) {
      ctx.addIssue({ code: 'custom', message: 'cpu_millis and memory_gbs must be given together' });
      return;
    }
    if (!isAllowedSize(cpu, memory, allowShared)) {
      const shared = allowShared ? 'shared/shared, ' : '';
      ctx.addIssue({
        code: 'custom',
        path: ['cpu_millis'],
        message: `size ${cpu}/${memory} is not allowed; allowed cpu_millis/memory_gbs pairs: ${shared}${allowedSizeList}`,
      });
    }
  };
}

const sizeString = z.string().regex(/^([0-9]+|shared)$/, 'must be a string of digits or "shared"');

export const CreateVpcBody = z.strictObject({
  name: z.string().min(1).max(128),
  cidr: z
    .string()
    .regex(
      /^((25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\/([0-9]|[12][0-9]|3[0-2])$/,
      'cidr must be an IPv4 CIDR block such as 10.0.0.0/16',
    ),
  region_code: z.string().min(1),
});

export const RenameVpcBody = z.strictObject({ name: z.string().min(1).max(128) });

export const RenameServiceBody = z.strictObject({ name: z.string().min(1).max(128) });

export const CreatePeeringBody = z.strictObject({
  peer_account_id: z.string().min(1),
  peer_region_code: z.string().min(1),
  peer_vpc_id: z.string().min(1),
});

export const ServiceAddon = z.enum(['time-series', 'ai']);
export type ServiceAddon = z.infer<typeof ServiceAddon>;

/** The type a service created with an add-on has (as spec.md names it); with none, POSTGRES. */
export const ADDON_SERVICE_TYPES = {
  'time-series': 'NEUTRALDB',
  ai: 'VECTOR',
} as const satisfies Record<ServiceAddon, ServiceType>;

/** The service type a create with these add-ons gives (the first add-on with a type decides). */
export function serviceTypeOfAddons(addons: readonly string[] | undefined): ServiceType {
  for (const [addon, type] of Object.entries(ADDON_SERVICE_TYPES)) if (addons?.includes(addon)) return type;
  return 'POSTGRES';
}

/** The add-ons a service of this type was created with; undefined for a type no create gives. */
export function addonsOfServiceType(type: string): ServiceAddon[] | undefined {
  if (type === 'POSTGRES') return [];
  const spec = (TIME_SERIES_TYPES as readonly string[]).includes(type)
    ? ADDON_SERVICE_TYPES['time-series']
    : type;
  const addon = ServiceAddon.options.find((name) => ADDON_SERVICE_TYPES[name] === spec);
  return addon === undefined ? undefined : [addon];
}

export const CreateServiceBody = z
  .strictObject({
    name: z.string().min(1).max(128),
    addons: z.array(ServiceAddon).optional(),
    region_code: z.string().min(1).optional(),
    replica_count: z.number().int().min(0).max(2).optional(),
    cpu_millis: sizeString.optional(),
    memory_gbs: sizeString.optional(),
    /** Sets `metadata.environment`; DEV by default (the vendor's CLI always sends it). */
    environment_tag: EnvironmentTag.optional(),
  })
  .superRefine(sizeRule(true));

/** Attaching to or detaching from a VPC names it by its id, which is digits (e.g. "1234567890"). */
export const ServiceVpcBody = z.strictObject({
  vpc_id: z.string().regex(/^[0-9]+$/, 'must be a VPC id, digits only (e.g. "1234567890")'),
});

export const ResizeBody = z
  .strictObject({ cpu_millis: digits('cpu_millis'), memory_gbs: digits('memory_gbs') })
  .superRefine(sizeRule(false));

export const ForkStrategy = z.enum(['LAST_SNAPSHOT', 'NOW', 'PITR']);

export const ForkServiceBody = z
  .strictObject({
    fork_strategy: ForkStrategy,
    target_time: z.iso.datetime({ offset: true }).optional(),
    name: z.string().min(1).max(128).optional(),
    /** Digits or `"shared"`, like create (the vendor's client sends `"shared"` on fork). */
    cpu_millis: sizeString.optional(),
    memory_gbs: sizeString.optional(),
    environment_tag: EnvironmentTag.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.fork_strategy === 'PITR' && body.target_time === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['target_time'],
        message: 'target_time is required with fork_strategy PITR',
      });
    }
    sizeRule(true)(body, ctx);
  });

export const UpdatePasswordBody = z.strictObject({ password: z.string().min(8).max(256) });

export const SetEnvironmentBody = z.strictObject({ environment: EnvironmentTag });

export const SetHaBody = z
  .strictObject({
    replica_count: z.number().int().min(0).max(2).optional(),
    sync_replica_count: z.number().int().min(0).max(1).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.replica_count === undefined && body.sync_replica_count === undefined) {
      ctx.addIssue({ code: 'custom', message: 'give replica_count, sync_replica_count or both' });
    }
    if (body.sync_replica_count === 1 && body.replica_count !== 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['sync_replica_count'],
        message: 'sync_replica_count 1 requires replica_count 2',
      });
    }
  });

export const CreateReplicaSetBody = z.strictObject({
  name: z.string().min(1).max(128),
  nodes: z.number().int().min(1),
  cpu_millis: z.number().int().positive(),
  memory_gbs: z.number().int().positive(),
});

export const ResizeReplicaSetBody = ResizeBody;

/** A search term or severity filter: not empty, not only spaces (the vendor's document: `\\S`). */
const filterTerm = z.string().min(1).max(256).regex(/\S/, 'must contain a non-space character');

export const LogsQuery = z.strictObject({
  cursor: z.string().min(1).optional(),
  node: z.number().int().min(0).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  /** Full-text terms; an entry matches when its message contains every term (sent as repeated `search`). */
  search: z.array(filterTerm).max(20).optional(),
  /** Severities to keep, e.g. `["ERROR", "FATAL"]` (sent as repeated `severities`). */
  severities: z.array(filterTerm).max(20).optional(),
});

/** Aggregations a metric series query may ask for per bucket (the vendor's document). */
export const MetricFn = z.enum([
  'RATE',
  'INCREASE',
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'COUNT',
  'P50',
  'P90',
  'P99',
  'LAST',
]);

/** Metrics whose series take no `fn`: the API rejects one (the vendor's document lists them). */
export const METRICS_WITHOUT_FN: readonly string[] = [
  'timescale_cloud_system_cpu_total_millicores',
  'timescale_cloud_system_cpu_usage_millicores',
  'timescale_cloud_system_disk_io_read_bytes',
  'timescale_cloud_system_disk_io_read_ops',
  'timescale_cloud_system_disk_io_total_bytes',
  'timescale_cloud_system_disk_io_total_ops',
  'timescale_cloud_system_disk_io_write_bytes',
  'timescale_cloud_system_disk_io_write_ops',
  'timescale_cloud_system_disk_usage_bytes',
  'timescale_cloud_system_memory_total_bytes',
  'timescale_cloud_system_memory_usage_bytes',
  'timescale_cloud_database_qps',
  'timescale_cloud_database_num_connections',
  'timescale_cloud_database_job_duration_usecs',
  'timescale_cloud_database_job_success',
];

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 24 * HOUR_SECONDS;

/**
 * The finest bucket (seconds) a window of `windowSeconds` can be read in, which is also the bucket
 * the API picks when none is asked for: 1 min up to 1 h, 1 h up to 30 days, 1 day beyond.
 */
export function metricsBucketTier(windowSeconds: number): number {
  if (windowSeconds <= HOUR_SECONDS) return 60;
  if (windowSeconds <= 30 * DAY_SECONDS) return HOUR_SECONDS;
  return DAY_SECONDS;
}

/**
 * A metric series query (preview operation), sent as a JSON body: a series name, a window
 * (`from` before `to`), and optionally a bucket size, an aggregation and label filters such as
 * `{key: "role", value: "replica"}`.
 */
export const MetricsSeriesBody = z
  .strictObject({
    name: z.string().min(1).max(256),
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
    bucket_seconds: z.number().int().min(60).optional(),
    fn: MetricFn.optional(),
    filters: z
      .array(
        z.strictObject({
          key: z.string().min(1),
          value: z.string().min(1, 'must have at least one character'),
        }),
      )
      .optional(),
  })
  .superRefine((body, ctx) => {
    const windowSeconds = (Date.parse(body.to) - Date.parse(body.from)) / 1000;
    if (!(windowSeconds > 0)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be later than from' });
      return;
    }
    const tier = metricsBucketTier(windowSeconds);
    // Below 60 s the field's own minimum has already said so.
    if (body.bucket_seconds !== undefined && body.bucket_seconds >= 60 && body.bucket_seconds < tier) {
      ctx.addIssue({
        code: 'custom',
        path: ['bucket_seconds'],
        message: `bucket_seconds ${body.bucket_seconds} is finer than this window allows; use at least ${tier}`,
      });
    }
    if (body.fn !== undefined && METRICS_WITHOUT_FN.includes(body.name)) {
      ctx.addIssue({ code: 'custom', path: ['fn'], message: `fn is not accepted on metric ${body.name}` });
    }
  });
