// Create-or-adopt: the API has no idempotency keys, and a create can take effect yet answer 5xx or
// time out. Before creating, every attempt looks for what the same create would have made:
// on the first attempt a match means the name is taken by someone else; on a retry it is what an
// earlier attempt of ours created, and it is adopted instead of creating a second one.
import type { ActionName } from '../cloud/operations';
import type { CallOptions, ActivityDeps } from './deps';
import { callAction } from './call-action';

type Input = Record<string, unknown>;
type Finder = (
  deps: ActivityDeps,
  input: Input,
  options: CallOptions,
) => Promise<Record<string, unknown> | undefined>;

export type CreateAction =
  'service.create' | 'service.fork' | 'replicaSet.create' | 'vpc.create' | 'peering.create';

const GONE_SERVICE = new Set(['DELETING', 'DELETED']);

const pick = (input: Input, ...keys: string[]): Input => Object.fromEntries(keys.map((k) => [k, input[k]]));

async function findService(
  deps: ActivityDeps,
  input: Input,
  options: CallOptions,
  name: string,
  parentId?: string,
) {
  const services = await callAction(deps, 'service.list', pick(input, 'project_id'), options);
  return services.find(
    (s) =>
      s.name === name &&
      !GONE_SERVICE.has(s.status ?? '') &&
      (parentId === undefined || s.forked_from?.service_id === parentId),
  );
}

export const ADOPTION_FINDERS: Readonly<Record<CreateAction, Finder>> = {
  'service.create': (deps, input, options) => findService(deps, input, options, String(input.name)),
  'service.fork': async (deps, input, options) => {
    let name = input.name as string | undefined;
    if (name === undefined) {
      const parent = await callAction(deps, 'service.get', pick(input, 'project_id', 'service_id'), options);
      name = `${parent.name ?? ''}-fork`;
    }
    return findService(deps, input, options, name, String(input.service_id));
  },
  'replicaSet.create': async (deps, input, options) => {
    const sets = await callAction(deps, 'replicaSet.list', pick(input, 'project_id', 'service_id'), options);
    return sets.find((s) => s.name === input.name && s.status !== 'deleting');
  },
  'vpc.create': async (deps, input, options) => {
    const vpcs = await callAction(deps, 'vpc.list', pick(input, 'project_id'), options);
    return vpcs.find((v) => v.name === input.name);
  },
  'peering.create': async (deps, input, options) => {
    const peerings = await callAction(deps, 'peering.list', pick(input, 'project_id', 'vpc_id'), options);
    return peerings.find(
      (p) =>
        p.peer_account_id === input.peer_account_id &&
        p.peer_vpc_id === input.peer_vpc_id &&
        p.peer_region_code === input.peer_region_code,
    );
  },
};

export function isCreateAction(action: ActionName): action is CreateAction {
  return action in ADOPTION_FINDERS;
}

/** How a create attempt may treat an existing match. */
export function describeExisting(action: CreateAction, input: Input): string {
  if (action === 'peering.create') {
    return `a peering from VPC ${String(input.vpc_id)} to ${String(input.peer_vpc_id)} already exists`;
  }
  const kind = action === 'vpc.create' ? 'VPC' : action === 'replicaSet.create' ? 'replica set' : 'service';
  const name = input.name === undefined ? 'the default fork name' : `"${String(input.name)}"`;
  return `a ${kind} named ${name} already exists`;
}
