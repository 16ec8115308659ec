// The API dialect the local cloud answers in. `seed` is spec.md's, the shape every handler
// produces but one (a metric series: below); `current` is what the real API answers now (the
// vendor's OpenAPI document of 2026-08-20; behaviour.md, "The vendor's current answers"). api.ts
// passes every success answer through `shapeAnswer` once, after the handler and before sending, so
// this module is the only place that knows the difference. A metric series' handler answers one
// point per bucket of the window, a bucket without data as a point without a value: the seed
// leaves such points out, the current dialect sends them with `value: null`. In the current dialect:
//   - a service (wherever one is answered, a standby view included) carries `vpc_endpoint` only
//     (the deprecated `vpcEndpoint` "may stop being sent": the worst case), `TIMESCALEDB` for
//     `NEUTRALDB`, and always a `metrics` key: null when the local cloud has no usage figures (a
//     service not READY, a standby view). `read_replica_sets` stays an array: the document does
//     not mark it nullable.
//   - a logs page carries `last_cursor` only; `logs` (legacy strings) and `entries` as before,
//   - auth.info carries `api_key` only,
//   - a metric series' empty buckets carry `value: null`,
//   - vpc.rename, service.updatePassword and replicaSet.resize answer `{message}` (CURRENT_MESSAGES),
//   - every answered object, and every endpoint in it, has an unknown extra field (EXTRA_FIELD),
//     which clients must ignore.
// Error answers are the same in both dialects.
import { z } from 'zod';
import { AuthInfo, MetricSeries, ReadReplicaSet, Service, ServiceLogsResponse } from '../cloud/models';
import { operations, type ActionName, type OperationDef, type SuccessStatus } from '../cloud/operations';

export const Dialect = z.enum(['seed', 'current']);
export type Dialect = z.infer<typeof Dialect>;

/** A success answer: its status and body (undefined when there is none). */
export interface ShapedAnswer {
  status: SuccessStatus;
  body: unknown;
}

/** The field no client knows, added in the current dialect to objects and to endpoints. */
export const EXTRA_FIELD = 'x_tideline_extra';
const TOP_LEVEL_EXTRA = { note: 'a field no client knows; ignore it', nested: { level: 2 } };
const ENDPOINT_EXTRA = 'ignore me';

type Json = Record<string, unknown>;
type Params = Readonly<Record<string, string>>;

/** Operations whose current answer is a `{message}` instead of the seed's answer (or no body). */
const CURRENT_MESSAGES: Partial<
  Record<ActionName, { status: SuccessStatus; message: (params: Params, seed: unknown) => string }>
> = {
  'vpc.rename': {
    status: 200,
    message: (params, seed) => `vpc ${params.vpc_id} renamed to ${String(asObject(seed)?.name)}`,
  },
  // spec.md (and the vendor's document) answer 204; the vendor's client accepts 200 as well.
  'service.updatePassword': {
    status: 200,
    message: (params) => `password of service ${params.service_id} updated`,
  },
  'replicaSet.resize': {
    status: 202,
    message: (params) => `replica set ${params.replica_set_id} is being resized`,
  },
};

// A current status the catalogue does not accept would fail tideline's own client: refuse to load.
for (const [action, answer] of Object.entries(CURRENT_MESSAGES)) {
  const def: OperationDef = operations[action as ActionName];
  if (answer && answer.status !== def.successStatus && !def.alsoAccepted.includes(answer.status)) {
    throw new Error(
      `dialect.ts: ${action} would answer ${answer.status}, which the catalogue does not accept`,
    );
  }
}

function asObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function withExtra(value: Json): Json {
  return { ...value, [EXTRA_FIELD]: TOP_LEVEL_EXTRA };
}

/** An endpoint (`{host, port, …}`) with an unknown field; anything else unchanged. */
function endpoint(value: unknown): unknown {
  const object = asObject(value);
  return object ? { ...object, [EXTRA_FIELD]: ENDPOINT_EXTRA } : value;
}

function pooler(value: unknown): unknown {
  const object = asObject(value);
  if (!object || object.endpoint === undefined) return value;
  return { ...object, endpoint: endpoint(object.endpoint) };
}

function currentReplicaSet(value: unknown): unknown {
  const set = asObject(value);
  if (!set) return value;
  return withExtra({
    ...set,
    ...(set.endpoint !== undefined ? { endpoint: endpoint(set.endpoint) } : {}),
    ...(set.connection_pooler !== undefined ? { connection_pooler: pooler(set.connection_pooler) } : {}),
  });
}

function currentService(value: unknown): unknown {
  const service = asObject(value);
  if (!service) return value;
  const { vpcEndpoint, metrics, ...rest } = service;
  return withExtra({
    ...rest,
    ...(rest.service_type === 'NEUTRALDB' ? { service_type: 'TIMESCALEDB' } : {}),
    ...(rest.endpoint !== undefined ? { endpoint: endpoint(rest.endpoint) } : {}),
    ...(rest.connection_pooler !== undefined ? { connection_pooler: pooler(rest.connection_pooler) } : {}),
    ...(vpcEndpoint !== undefined ? { vpc_endpoint: endpoint(vpcEndpoint) } : {}),
    // Usage figures exist only for a running service; the vendor's Go type sends null otherwise.
    metrics: rest.status === 'READY' && metrics !== undefined ? metrics : null,
    ...(Array.isArray(rest.read_replica_sets)
      ? { read_replica_sets: rest.read_replica_sets.map(currentReplicaSet) }
      : {}),
  });
}

function currentLogs(value: unknown): unknown {
  const page = asObject(value);
  if (!page) return value;
  const { lastCursor, ...rest } = page;
  return withExtra({ ...rest, ...(lastCursor !== undefined ? { last_cursor: lastCursor } : {}) });
}

function currentAuthInfo(value: unknown): unknown {
  const info = asObject(value);
  if (!info) return value;
  const { apiKey, ...rest } = info;
  return withExtra({ ...rest, ...(apiKey !== undefined ? { api_key: apiKey } : {}) });
}

/** A metric series whose points without a value are left out (seed) or sent as `value: null`. */
function metricGaps(gap: 'leave-out' | 'null'): (value: unknown) => unknown {
  return (value) => {
    const series = asObject(value);
    if (!series || !Array.isArray(series.data)) return value;
    const points = series.data.map(asObject).filter((point) => point !== undefined);
    const data =
      gap === 'leave-out'
        ? points.filter((point) => point.value !== undefined)
        : points.map((point) => (point.value === undefined ? { ...point, value: null } : point));
    return { ...series, data };
  };
}

/** How the current dialect reshapes one answered object, chosen by the catalogue's response schema. */
function currentObject(response: z.ZodType): (value: unknown) => unknown {
  if (response === MetricSeries) {
    const withNullGaps = metricGaps('null');
    return (value) => {
      const series = asObject(withNullGaps(value));
      return series ? withExtra(series) : value;
    };
  }
  if (response === Service) return currentService;
  if (response === ReadReplicaSet) return currentReplicaSet;
  if (response === ServiceLogsResponse) return currentLogs;
  if (response === AuthInfo) return currentAuthInfo;
  return (value) => {
    const object = asObject(value);
    return object ? withExtra(object) : value;
  };
}

/** The body with `reshape(element schema)` applied to each element of a list, or to the object. */
function reshapeBody(
  def: OperationDef,
  body: unknown,
  reshape: (response: z.ZodType) => (value: unknown) => unknown,
): unknown {
  if (body === undefined || def.response === undefined) return body;
  if (def.response instanceof z.ZodArray) {
    const element = reshape(def.response.element as z.ZodType);
    return Array.isArray(body) ? body.map(element) : body;
  }
  return reshape(def.response)(body);
}

/** How the seed reshapes one answered object: only a metric series' gaps, left out. */
function seedObject(response: z.ZodType): (value: unknown) => unknown {
  return response === MetricSeries ? metricGaps('leave-out') : (value) => value;
}

/** The success answer of `action` in `dialect`, from the handler's seed-shaped result. */
export function shapeAnswer(
  dialect: Dialect,
  action: ActionName,
  params: Params,
  seed: unknown,
): ShapedAnswer {
  const def: OperationDef = operations[action];
  if (dialect === 'seed') return { status: def.successStatus, body: reshapeBody(def, seed, seedObject) };
  const message = CURRENT_MESSAGES[action];
  if (message) return { status: message.status, body: withExtra({ message: message.message(params, seed) }) };
  return { status: def.successStatus, body: reshapeBody(def, seed, currentObject) };
}
