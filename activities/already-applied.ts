// Retry safety for changes: a mutate or delete can take effect and still answer 5xx or time out.
// Its retry would then fail on the API's own rules (stop a PAUSED service → 400, attach twice →
// 409). So a retried attempt first reads the resource and, when the change already holds, reports
// success without sending it again. First attempts of normal activities always send (the API's
// answer stands); a local change checks on every attempt (activities/action-activities.ts).
import type { ActionName } from '../cloud/operations';
import { isCloudApiError } from '../cloud/errors';
import type { Service } from '../cloud/models';
import type { ActivityDeps, CallOptions } from './deps';
import { callAction } from './call-action';

type Input = Record<string, unknown>;
/**
 * Answers what the step's output is when the change the input asks for is already in place (the
 * resource as it is now, or `{}` for a deletion), and `undefined` when it is not.
 */
type Check = (deps: ActivityDeps, input: Input, options: CallOptions) => Promise<Input | undefined>;
const when = <T extends object>(holds: boolean, value: T): T | undefined => (holds ? value : undefined);

const pick = (input: Input, ...keys: string[]): Input => Object.fromEntries(keys.map((k) => [k, input[k]]));

/** Reads a resource; a 404 answers `undefined`. */
async function readOrGone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isCloudApiError(error) && error.code === 'CLOUD_API_NOT_FOUND') return undefined;
    throw error;
  }
}

function serviceCheck(holds: (service: Service, input: Input) => boolean): Check {
  return async (deps, input, options) => {
    const service = await callAction(deps, 'service.get', pick(input, 'project_id', 'service_id'), options);
    return when(holds(service, input), service);
  };
}

function replicaSetCheck(holds: (set: Record<string, unknown> | undefined, input: Input) => boolean): Check {
  return async (deps, input, options) => {
    const sets = await callAction(deps, 'replicaSet.list', pick(input, 'project_id', 'service_id'), options);
    const set = sets.find((s) => s.id === input.replica_set_id);
    return when(holds(set, input), set ?? {});
  };
}

const spec = (service: Service) => service.resources?.[0]?.spec;
/**
 * A layout (size, HA) holds only on a service that settled: one a change left UNSTABLE is put right
 * by sending its layout again, which is what a rollback to the recorded layout does.
 */
const settled = (service: Service) => service.status !== 'UNSTABLE';
const poolerOn = (service: Service) => service.connection_pooler?.endpoint?.host !== undefined;

export const ALREADY_APPLIED: Partial<Record<ActionName, Check>> = {
  'service.start': serviceCheck((s) => s.status === 'READY' || s.status === 'RESUMING'),
  'service.stop': serviceCheck((s) => s.status === 'PAUSED' || s.status === 'PAUSING'),
  'service.attachToVpc': serviceCheck((s, i) => s.vpc_endpoint?.vpc_id === i.vpc_id),
  'service.detachFromVpc': serviceCheck(
    (s, i) => s.status === 'READY' && s.vpc_endpoint?.vpc_id !== i.vpc_id,
  ),
  'service.enablePooler': serviceCheck((s) => poolerOn(s)),
  'service.disablePooler': serviceCheck((s) => s.status === 'READY' && !poolerOn(s)),
  'service.setEnvironment': serviceCheck((s, i) => s.metadata?.environment === i.environment),
  'service.rename': serviceCheck((s, i) => s.name === i.name),
  'service.resize': serviceCheck(
    (s, i) =>
      settled(s) &&
      String(spec(s)?.cpu_millis) === i.cpu_millis &&
      String(spec(s)?.memory_gbs) === i.memory_gbs,
  ),
  'service.setHA': serviceCheck(
    (s, i) =>
      settled(s) &&
      (i.replica_count === undefined || s.ha_replicas?.replica_count === i.replica_count) &&
      (i.sync_replica_count === undefined || s.ha_replicas?.sync_replica_count === i.sync_replica_count),
  ),
  'service.delete': async (deps, input, options) => {
    const service = await readOrGone(() =>
      callAction(deps, 'service.get', pick(input, 'project_id', 'service_id'), options),
    );
    return when(service === undefined || service.status === 'DELETING' || service.status === 'DELETED', {});
  },
  'vpc.delete': async (deps, input, options) => {
    const vpc = await readOrGone(() =>
      callAction(deps, 'vpc.get', pick(input, 'project_id', 'vpc_id'), options),
    );
    return when(vpc === undefined, {});
  },
  'vpc.rename': async (deps, input, options) => {
    const vpc = await callAction(deps, 'vpc.get', pick(input, 'project_id', 'vpc_id'), options);
    return when(vpc.name === input.name, vpc);
  },
  'peering.delete': async (deps, input, options) => {
    const peering = await readOrGone(() =>
      callAction(deps, 'peering.get', pick(input, 'project_id', 'vpc_id', 'peering_id'), options),
    );
    return when(peering === undefined, {});
  },
  'replicaSet.delete': replicaSetCheck((set) => set === undefined || set.status === 'deleting'),
  'replicaSet.resize': replicaSetCheck(
    (set, i) =>
      set !== undefined && String(set.cpu_millis) === i.cpu_millis && String(set.memory_gbs) === i.memory_gbs,
  ),
  'replicaSet.setEnvironment': replicaSetCheck(
    (set, i) => (set?.metadata as { environment?: unknown } | undefined)?.environment === i.environment,
  ),
  'replicaSet.enablePooler': replicaSetCheck(
    (set) => (set?.connection_pooler as { endpoint?: unknown } | undefined)?.endpoint !== undefined,
  ),
  'replicaSet.disablePooler': replicaSetCheck(
    (set) =>
      set !== undefined &&
      (set.connection_pooler as { endpoint?: unknown } | undefined)?.endpoint === undefined,
  ),
};
