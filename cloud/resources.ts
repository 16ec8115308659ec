// What the Cloud API's operations act on, and the facts that belong to the resource rather than to
// one operation: the input field that names one, the answer field a create puts the new id in, and
// whether changing one takes its service's lock. An operation names its resource in the catalogue
// (cloud/operations.ts), which checks that the name's group (`service` of `service.create`) is it.
// Workflow code reads this module: it must stay free of zod, Node built-ins and I/O (the catalogue
// itself brings zod and every schema, which each workflow run would otherwise evaluate again).

/** How a change to a resource is serialised: `service` takes the lock of the service it names. */
export type LockGroup = 'service' | 'none';

export interface ResourceFacts {
  /** The input field (a path parameter) that names one; `undefined` when nothing does. */
  readonly idField: string | undefined;
  /** How a step record lists one; `undefined` for a resource a step record does not list. */
  readonly recordType: 'service' | 'vpc' | 'peering' | 'replica-set' | undefined;
  /** The field of a create's answer that holds the new one's id; `undefined` when none is created. */
  readonly createdIdField: string | undefined;
  /** Whether a change to it (a mutate or a delete) is serialised per service. */
  readonly lock: LockGroup;
  /** What messages call one. */
  readonly label: string;
}

/**
 * Listed in the order a step record names the resources of its input (service, VPC, peering,
 * replica set): that order reaches the run's progress and its TidelineServices search attribute.
 */
export const RESOURCES = {
  service: {
    idField: 'service_id',
    recordType: 'service',
    createdIdField: 'service_id',
    lock: 'service',
    label: 'service',
  },
  vpc: { idField: 'vpc_id', recordType: 'vpc', createdIdField: 'id', lock: 'none', label: 'VPC' },
  peering: {
    idField: 'peering_id',
    recordType: 'peering',
    createdIdField: 'id',
    lock: 'none',
    label: 'peering',
  },
  // A replica set belongs to a service: changing one takes that service's lock.
  replicaSet: {
    idField: 'replica_set_id',
    recordType: 'replica-set',
    createdIdField: 'id',
    lock: 'service',
    label: 'replica set',
  },
  project: {
    idField: 'project_id',
    recordType: undefined,
    createdIdField: undefined,
    lock: 'none',
    label: 'project',
  },
  auth: { idField: undefined, recordType: undefined, createdIdField: undefined, lock: 'none', label: 'key' },
} as const satisfies Record<string, ResourceFacts>;

export type Resource = keyof typeof RESOURCES;
export const RESOURCE_NAMES = Object.keys(RESOURCES) as Resource[];

/**
 * The resource an action acts on, read from its name's group (`replicaSet.resize` → `replicaSet`);
 * the catalogue's type checks that each operation's `resource` is its group. `undefined` for a name
 * outside the catalogue.
 */
export function resourceOf(action: string): Resource | undefined {
  const dot = action.indexOf('.');
  if (dot < 0) return undefined;
  const group = action.slice(0, dot);
  return Object.hasOwn(RESOURCES, group) ? (group as Resource) : undefined;
}
