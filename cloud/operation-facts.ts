// The kinds of per-operation fact the catalogue (cloud/operations.ts) states besides the HTTP shape:
// how a lost create is found and adopted, how a change that already holds is recognised, which
// answers the local cloud's scripted outcomes can change. They are descriptions (which action to
// read, which fields to compare) that activities/create-or-adopt.ts and activities/already-applied.ts
// interpret; predicates here are pure. Free of zod values, Node built-ins and I/O, like the catalogue.
import type { ReadReplicaSet, Service, Vpc } from './models';

export type FactInput = Readonly<Record<string, unknown>>;

/** Scripted outcomes of the local cloud (`faults: [{kind: outcome}]`); each operation lists those it can take. */
export const FAULT_OUTCOMES = ['unstable', 'stuckQueued', 'replicaSetError', 'peeringFailed'] as const;
export type FaultOutcome = (typeof FAULT_OUTCOMES)[number];

/** The request and answer fields of an operation that hold secrets (see cloud/secret-fields.ts). */
export interface SecretFields<In extends string = string, Out extends string = string> {
  readonly input: readonly In[];
  readonly output: readonly Out[];
}

/** One field of a listed resource that must equal one field of the create's input. */
export interface AdoptionMatch<In extends string = string> {
  /** Path inside a listed element, e.g. `['forked_from', 'service_id']`. */
  readonly answer: readonly [string, ...string[]];
  /**
   * The create's input field. A path parameter is compared as the string the URL carries (the
   * HTTP layer sends it so); a body field as it is.
   */
  readonly input: In;
}

/**
 * How to find what a create made when its answer was lost: list with `list` (its path parameters
 * taken from the create's input) and take the first element that matches every `match` and whose
 * `status` is not one of `goneStatuses`.
 */
export interface Adoption<In extends string = string> {
  /** A `list` of the catalogue (checked against it by a unit test; the catalogue cannot name itself). */
  readonly list: `${string}.list`;
  readonly match: readonly AdoptionMatch<In>[];
  /** Statuses of a resource on its way out: it no longer takes the name. */
  readonly goneStatuses: readonly string[];
  /**
   * When the input has no `name`, the name the API gives: the `name` of what `read` answers (with
   * the create's path parameters) followed by `suffix`.
   */
  readonly defaultName?: { readonly read: `${string}.get`; readonly suffix: string };
  /** What an existing match is, for the message that the name is taken. */
  readonly describe: (input: FactInput) => string;
}

/**
 * How a retried change recognises that an earlier attempt already took effect, and what the step's
 * output then is:
 * - `none`: never (reads, creates — adoption covers those —, and changes with nothing to read);
 * - `service`: `holds` of the service `service.get` answers; the output is that service;
 * - `vpc`: `holds` of the VPC `vpc.get` answers; the output is that VPC;
 * - `replicaSet`: `holds` of the replica set `replicaSet.list` shows with the input's
 *   `replica_set_id` (`undefined` when none does); the output is that set, or `{}`;
 * - `gone`: `read` answers 404, or a status in `goneStatuses`; the output is `{}`.
 */
export type AlreadyApplied =
  | { readonly check: 'none' }
  | { readonly check: 'service'; readonly holds: (service: Service, input: FactInput) => boolean }
  | { readonly check: 'vpc'; readonly holds: (vpc: Vpc, input: FactInput) => boolean }
  | {
      readonly check: 'replicaSet';
      readonly holds: (set: ReadReplicaSet | undefined, input: FactInput) => boolean;
    }
  | {
      readonly check: 'gone';
      readonly read: 'service.get' | 'vpc.get' | 'peering.get';
      readonly goneStatuses: readonly string[];
    };

export const NOT_CHECKED = { check: 'none' } as const satisfies AlreadyApplied;

export const serviceHolds = (holds: (service: Service, input: FactInput) => boolean): AlreadyApplied => ({
  check: 'service',
  holds,
});
export const vpcHolds = (holds: (vpc: Vpc, input: FactInput) => boolean): AlreadyApplied => ({
  check: 'vpc',
  holds,
});
export const replicaSetHolds = (
  holds: (set: ReadReplicaSet | undefined, input: FactInput) => boolean,
): AlreadyApplied => ({ check: 'replicaSet', holds });
export const goneWhen = (
  read: 'service.get' | 'vpc.get' | 'peering.get',
  goneStatuses: readonly string[] = [],
): AlreadyApplied => ({ check: 'gone', read, goneStatuses });

// Helpers of the catalogue's `holds` predicates.
export const serviceSpec = (service: Service) => service.resources?.[0]?.spec;
/**
 * A layout (size, HA) holds only on a service that settled: one a change left UNSTABLE is put right
 * by sending its layout again, which is what a rollback to the recorded layout does.
 */
export const settled = (service: Service) => service.status !== 'UNSTABLE';
export const poolerOn = (service: Service) => service.connection_pooler?.endpoint?.host !== undefined;
