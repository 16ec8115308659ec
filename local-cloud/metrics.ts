// Generated metric series (the vendor's preview metrics operations). A value is a pure function of
// (service, series, node, bucket start), derived from the service's current size and the usage
// shares drawn at its creation, so a series is stable however often and in whatever window it is
// read, and moves with the local cloud's clock. Data exists from the bucket in which the service
// first became READY up to now; every other bucket of the window is a gap, a point without a
// value, which dialect.ts sends as `value: null` (the current dialect) or leaves out (the seed's).
//
// Series are per node: the primary (`role: "primary"`, `ordinal: "0"`) and each HA replica
// (`role: "replica"`, `ordinal: "1"`, …). Filters are label matches; without a `role` filter only
// the primary's series is answered, which the vendor's document allows ("some metrics default to
// primary") and keeps answers deterministic.
//
// An injected metricAnomaly (fault-schema.ts) overrides a series: every bucket that ends after the
// anomaly's start reads its value, on every node; earlier buckets keep their generated values.
import type { MetricSeries } from '../cloud/models';
import { metricsBucketTier } from '../cloud/requests';
import { badRequest } from './errors';
import { hashString } from './random';
import type { ServiceRecord } from './state';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const DAY_MS = 24 * 60 * 60 * 1000;

interface Node {
  readonly role: 'primary' | 'replica';
  readonly ordinal: number;
}

/** What a series reads at one instant: `load` is the node's load factor there (about 0.5 to 1.5). */
type SeriesValue = (service: ServiceRecord, load: number) => number;

const cpuUsage: SeriesValue = (s, load) =>
  Math.round(Math.min(s.cpuMillis, s.cpuMillis * s.usage.cpuShare * load));
const memoryUsage: SeriesValue = (s, load) =>
  Math.round(Math.min(1, s.usage.memoryShare * (0.9 + 0.1 * load)) * s.memoryGbs * GIB);

/** The series the local cloud has for every service, by the vendor's names. */
const SERIES: Readonly<Record<string, SeriesValue>> = {
  timescale_cloud_system_cpu_total_millicores: (s) => s.cpuMillis,
  timescale_cloud_system_cpu_usage_millicores: cpuUsage,
  timescale_cloud_system_memory_total_bytes: (s) => s.memoryGbs * GIB,
  timescale_cloud_system_memory_usage_bytes: memoryUsage,
  timescale_cloud_system_disk_usage_bytes: (s) => s.usage.storageMb * MIB,
  timescale_cloud_system_disk_io_read_bytes: (s, load) => Math.round(s.cpuMillis * load * 4096),
  timescale_cloud_system_disk_io_write_bytes: (s, load) => Math.round(s.cpuMillis * load * 1024),
  timescale_cloud_database_num_connections: (s, load) =>
    Math.max(1, Math.round((s.cpuMillis / 50) * s.usage.cpuShare * load)),
  timescale_cloud_database_qps: (s, load) => Math.round(s.cpuMillis * s.usage.cpuShare * load * 10) / 100,
};

export const METRIC_SERIES_NAMES: readonly string[] = Object.keys(SERIES).sort();

interface SeriesQuery {
  name: string;
  from: string;
  to: string;
  bucket_seconds?: number | undefined;
  filters?: { key: string; value: string }[] | undefined;
}

function nodesOf(service: ServiceRecord): Node[] {
  const replicas = Array.from({ length: service.haReplicas }, (_, i): Node => ({
    role: 'replica',
    ordinal: i + 1,
  }));
  return [{ role: 'primary', ordinal: 0 }, ...replicas];
}

const labelsOf = (node: Node): Record<string, string> => ({ role: node.role, ordinal: String(node.ordinal) });

/** A series' labels match when every filter names one of them with its value (a role in any case). */
function matches(
  labels: Record<string, string>,
  filters: readonly { key: string; value: string }[],
): boolean {
  return filters.every(({ key, value }) =>
    key === 'role' ? labels.role === value.toLowerCase() : labels[key] === value,
  );
}

/** A daily swing plus per-bucket noise, replicas a little below the primary. */
function loadAt(service: ServiceRecord, name: string, node: Node, at: number): number {
  const phase = (hashString(`${service.id}:phase`) % 1000) / 1000;
  const daily = Math.sin(2 * Math.PI * (at / DAY_MS + phase));
  const noise = hashString(`${service.id}:${name}:${node.ordinal}:${at}`) / 0x1_0000_0000 - 0.5;
  return (node.role === 'primary' ? 1 : 0.7) * (1 + 0.3 * daily + 0.4 * noise);
}

const rfc3339 = (at: number) => new Date(at).toISOString().replace('.000Z', 'Z');

/** An injected value and the instant (RFC 3339) from which the series reads it. */
export interface MetricAnomaly {
  readonly value: number;
  readonly from?: string | undefined;
}

/** The series of `query.name` for the nodes the filters select, one point per bucket of the window. */
export function metricSeries(
  service: ServiceRecord,
  query: SeriesQuery,
  now: number,
  anomaly?: MetricAnomaly,
): MetricSeries[] {
  const value = SERIES[query.name];
  if (value === undefined) {
    throw badRequest(
      `name: unknown metric series ${JSON.stringify(query.name)}; the service has ${METRIC_SERIES_NAMES.join(', ')}`,
    );
  }
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  const bucketMs = (query.bucket_seconds ?? metricsBucketTier((to - from) / 1000)) * 1000;
  const filters = query.filters ?? [];
  const byRole = filters.some((filter) => filter.key === 'role');
  const anomalyFrom = anomaly?.from === undefined ? -Infinity : Date.parse(anomaly.from);
  const read = (node: Node, at: number): number =>
    anomaly && at + bucketMs > anomalyFrom
      ? anomaly.value
      : value(service, loadAt(service, query.name, node, at));

  // Buckets start on multiples of their size; one has data when it overlaps [first READY, now].
  const firstWithData =
    service.firstReadyAt === null ? Infinity : Math.floor(service.firstReadyAt / bucketMs) * bucketMs;
  const hasData = (at: number): boolean => at >= firstWithData && at <= now;
  const starts: number[] = [];
  for (let at = Math.floor(from / bucketMs) * bucketMs; at < to; at += bucketMs) starts.push(at);
  return nodesOf(service)
    .filter((node) => (byRole || node.role === 'primary') && matches(labelsOf(node), filters))
    .map((node) => ({
      labels: labelsOf(node),
      data: starts.map((at) =>
        hasData(at) ? { time: rfc3339(at), value: read(node, at) } : { time: rfc3339(at) },
      ),
    }));
}
