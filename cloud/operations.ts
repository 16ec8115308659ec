// The operation catalogue: every Cloud API operation, once, with every fact about it. The typed
// client, the local cloud's router and fault rules, the activities (create-or-adopt, already-applied
// checks) and the runbook language's action catalogue are all built from this table; a new
// operation that leaves a fact out does not compile. Workflow code reads only cloud/resources.ts
// (this module brings zod and every schema). Free of Node built-ins and I/O.
import { z } from 'zod';
import {
  AuthInfo,
  MessageResponse,
  MetricSeries,
  MetricSeriesNames,
  Peering,
  Project,
  ReadReplicaSet,
  Service,
  ServiceLogsResponse,
  Vpc,
  VpcRenameResponse,
} from './models';
import {
  goneWhen,
  NOT_CHECKED,
  poolerOn,
  replicaSetHolds,
  serviceHolds,
  serviceSpec,
  settled,
  vpcHolds,
  type Adoption,
  type AlreadyApplied,
  type FaultOutcome,
  type SecretFields,
} from './operation-facts';
import {
  CreatePeeringBody,
  CreateReplicaSetBody,
  CreateServiceBody,
  CreateVpcBody,
  ForkServiceBody,
  LogsQuery,
  MetricsSeriesBody,
  RenameServiceBody,
  RenameVpcBody,
  ResizeBody,
  ResizeReplicaSetBody,
  ServiceVpcBody,
  SetEnvironmentBody,
  SetHaBody,
  UpdatePasswordBody,
} from './requests';
import { RESOURCES, type Resource } from './resources';

/**
 * How an operation behaves for retries: `read` has no effect, `mutate` changes an existing
 * resource, `create` makes a new one (so a blind retry could duplicate it), `delete` removes one.
 */
export type OperationKind = 'read' | 'mutate' | 'create' | 'delete';
export type HttpMethod = 'GET' | 'POST' | 'DELETE';
export type SuccessStatus = 200 | 201 | 202 | 204;
/** A `get` of the catalogue (checked against it by a unit test; the catalogue cannot name itself). */
type ReadBackAction = `${string}.get`;

type PathParam = 'project_id' | 'vpc_id' | 'peering_id' | 'service_id' | 'replica_set_id';

type FieldsOf<S> = S extends z.ZodType ? Extract<keyof z.input<S>, string> : never;
type AnswerFieldsOf<S> = S extends z.ZodType ? Extract<keyof z.output<S>, string> : never;
/** The fields of an operation's flat input: path parameters, body fields, query fields. */
type InputFieldOf<Params extends readonly PathParam[], Body, Query> =
  Params[number] | FieldsOf<Body> | FieldsOf<Query>;

export interface OperationDef<
  Params extends readonly PathParam[] = readonly PathParam[],
  Body extends z.ZodType | undefined = z.ZodType | undefined,
  Query extends z.ZodType | undefined = z.ZodType | undefined,
  Response extends z.ZodType | undefined = z.ZodType | undefined,
  Kind extends OperationKind = OperationKind,
> {
  readonly method: HttpMethod;
  /** Relative to the base URL, with `{param}` placeholders. */
  readonly path: string;
  readonly pathParams: Params;
  readonly body: Body;
  readonly query: Query;
  /** `undefined` when the success answer has no body. */
  readonly response: Response;
  /** What the API answers on success (spec.md), and what the local cloud answers. */
  readonly successStatus: SuccessStatus;
  /** Other success statuses the API may answer (the vendor's own client accepts them too). */
  readonly alsoAccepted: readonly SuccessStatus[];
  /**
   * A read that gives the step its output when the answer is only a `{message}` (the API's
   * current dialect answers some changes so): it takes the same path parameters.
   */
  readonly readBack: ReadBackAction | undefined;
  readonly kind: Kind;
  readonly summary: string;
  /**
   * What it acts on (the group of its name). The resource's facts (cloud/resources.ts) say which
   * input field names one, which answer field a create puts the new id in, and whether a change
   * takes its service's lock.
   */
  readonly resource: Resource;
  /** Request and answer fields holding secrets: never literals in a runbook, never in a log. */
  readonly secretFields: SecretFields;
  /** The local cloud's scripted outcomes that can change this operation's result. */
  readonly faultOutcomes: readonly FaultOutcome[];
  /** How a retried change sees it already took effect (`none` for reads and creates). */
  readonly alreadyApplied: AlreadyApplied;
  /** For a create: how a lost create's resource is found, to adopt it rather than make a second. */
  readonly adopt: Kind extends 'create' ? Adoption : undefined;
}

/** The facts an operation states according to its kind. */
type KindFacts<Kind extends OperationKind, In extends string> = Kind extends 'create'
  ? { adopt: Adoption<In> }
  : Kind extends 'mutate' | 'delete'
    ? { alreadyApplied: AlreadyApplied }
    : unknown;

function op<
  const Params extends readonly PathParam[],
  const Kind extends OperationKind,
  const Res extends Resource,
  Body extends z.ZodType | undefined = undefined,
  Query extends z.ZodType | undefined = undefined,
  Response extends z.ZodType | undefined = undefined,
>(
  def: {
    method: HttpMethod;
    path: string;
    pathParams: Params;
    body?: Body;
    query?: Query;
    response?: Response;
    successStatus: SuccessStatus;
    alsoAccepted?: readonly SuccessStatus[];
    readBack?: ReadBackAction;
    kind: Kind;
    summary: string;
    resource: Res;
    secretFields: SecretFields<NoInfer<InputFieldOf<Params, Body, Query>>, NoInfer<AnswerFieldsOf<Response>>>;
    faultOutcomes: readonly FaultOutcome[];
  } & KindFacts<Kind, NoInfer<InputFieldOf<Params, Body, Query>>>,
): OperationDef<Params, Body, Query, Response, Kind> & { readonly resource: Res } {
  const facts = def as {
    adopt?: Adoption;
    alreadyApplied?: AlreadyApplied;
  };
  return {
    method: def.method,
    path: def.path,
    pathParams: def.pathParams,
    body: def.body as Body,
    query: def.query as Query,
    response: def.response as Response,
    successStatus: def.successStatus,
    alsoAccepted: def.alsoAccepted ?? [],
    readBack: def.readBack,
    kind: def.kind,
    summary: def.summary,
    resource: def.resource,
    secretFields: def.secretFields,
    faultOutcomes: def.faultOutcomes,
    alreadyApplied: facts.alreadyApplied ?? NOT_CHECKED,
    adopt: facts.adopt as OperationDef<Params, Body, Query, Response, Kind>['adopt'],
  };
}

const NO_SECRETS = { input: [], output: [] } as const;
const NO_FAULTS = [] as const;
const GONE_SERVICE = ['DELETING', 'DELETED'];
/** A create's name in a message; without one, the name the API gives a fork. */
const nameOf = (input: { readonly name?: unknown }) =>
  input.name === undefined ? 'the default fork name' : `"${String(input.name)}"`;

const PROJECT = ['project_id'] as const;
const VPC = ['project_id', 'vpc_id'] as const;
const PEERING = ['project_id', 'vpc_id', 'peering_id'] as const;
const SERVICE = ['project_id', 'service_id'] as const;
const REPLICA_SET = ['project_id', 'service_id', 'replica_set_id'] as const;

const S = '/projects/{project_id}/services/{service_id}';
const RS = `${S}/replicaSets/{replica_set_id}`;
const V = '/projects/{project_id}/vpcs/{vpc_id}';

export const operations = {
  // Not in spec.md; the vendor's CLI (`tiger auth login` / `auth status`) calls it to learn whose key
  // it holds and which project it belongs to.
  'auth.info': op({
    method: 'GET',
    path: '/auth/info',
    pathParams: [],
    response: AuthInfo,
    successStatus: 200,
    kind: 'read',
    resource: 'auth',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'Who the key pair is: its name, project (with plan type) and issuing user',
  }),

  'project.list': op({
    method: 'GET',
    path: '/projects',
    pathParams: [],
    response: z.array(Project),
    successStatus: 200,
    kind: 'read',
    resource: 'project',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'List the projects the key can see',
  }),

  'vpc.list': op({
    method: 'GET',
    path: '/projects/{project_id}/vpcs',
    pathParams: PROJECT,
    response: z.array(Vpc),
    successStatus: 200,
    kind: 'read',
    resource: 'vpc',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'List VPCs',
  }),
  'vpc.create': op({
    method: 'POST',
    path: '/projects/{project_id}/vpcs',
    pathParams: PROJECT,
    body: CreateVpcBody,
    response: Vpc,
    successStatus: 201,
    kind: 'create',
    resource: 'vpc',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    adopt: {
      list: 'vpc.list',
      match: [{ answer: ['name'], input: 'name' }],
      goneStatuses: [],
      describe: (input) => `a VPC named ${nameOf(input)} already exists`,
    },
    summary: 'Create a VPC',
  }),
  'vpc.get': op({
    method: 'GET',
    path: V,
    pathParams: VPC,
    response: Vpc,
    successStatus: 200,
    kind: 'read',
    resource: 'vpc',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'Get a VPC',
  }),
  'vpc.delete': op({
    method: 'DELETE',
    path: V,
    pathParams: VPC,
    successStatus: 204,
    kind: 'delete',
    resource: 'vpc',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: goneWhen('vpc.get'),
    summary: 'Delete a VPC',
  }),
  'vpc.rename': op({
    method: 'POST',
    path: `${V}/rename`,
    pathParams: VPC,
    body: RenameVpcBody,
    // spec.md answers the VPC; the current dialect only `{message}`, so the VPC is then read back.
    response: VpcRenameResponse,
    readBack: 'vpc.get',
    successStatus: 200,
    kind: 'mutate',
    resource: 'vpc',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: vpcHolds((v, i) => v.name === i.name),
    summary: 'Rename a VPC',
  }),

  'peering.list': op({
    method: 'GET',
    path: `${V}/peerings`,
    pathParams: VPC,
    response: z.array(Peering),
    successStatus: 200,
    kind: 'read',
    resource: 'peering',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'List the peerings of a VPC',
  }),
  'peering.create': op({
    method: 'POST',
    path: `${V}/peerings`,
    pathParams: VPC,
    body: CreatePeeringBody,
    response: Peering,
    successStatus: 201,
    kind: 'create',
    resource: 'peering',
    secretFields: NO_SECRETS,
    faultOutcomes: ['peeringFailed'],
    adopt: {
      list: 'peering.list',
      // One peering per peer VPC: the same peer account, VPC and region.
      match: [
        { answer: ['peer_account_id'], input: 'peer_account_id' },
        { answer: ['peer_vpc_id'], input: 'peer_vpc_id' },
        { answer: ['peer_region_code'], input: 'peer_region_code' },
      ],
      goneStatuses: [],
      describe: (input) =>
        `a peering from VPC ${String(input.vpc_id)} to ${String(input.peer_vpc_id)} already exists`,
    },
    summary: 'Peer a VPC with an external cloud account',
  }),
  'peering.get': op({
    method: 'GET',
    path: `${V}/peerings/{peering_id}`,
    pathParams: PEERING,
    response: Peering,
    successStatus: 200,
    kind: 'read',
    resource: 'peering',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'Get a peering',
  }),
  'peering.delete': op({
    method: 'DELETE',
    path: `${V}/peerings/{peering_id}`,
    pathParams: PEERING,
    successStatus: 204,
    kind: 'delete',
    resource: 'peering',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: goneWhen('peering.get'),
    summary: 'Delete a peering',
  }),

  'service.list': op({
    method: 'GET',
    path: '/projects/{project_id}/services',
    pathParams: PROJECT,
    response: z.array(Service),
    successStatus: 200,
    kind: 'read',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'List services',
  }),
  'service.create': op({
    method: 'POST',
    path: '/projects/{project_id}/services',
    pathParams: PROJECT,
    // `environment_tag` (DEV default) sets metadata.environment; spec.md omits it, the vendor's
    // CLI always sends it. Sizes may be "shared" (answered with null resources[].spec sizes).
    body: CreateServiceBody,
    response: Service,
    successStatus: 202,
    kind: 'create',
    resource: 'service',
    secretFields: { input: [], output: ['initial_password'] },
    faultOutcomes: ['unstable', 'stuckQueued'],
    adopt: {
      list: 'service.list',
      match: [{ answer: ['name'], input: 'name' }],
      goneStatuses: GONE_SERVICE,
      describe: (input) => `a service named ${nameOf(input)} already exists`,
    },
    summary: 'Create a service (answers QUEUED, with initial_password)',
  }),
  'service.get': op({
    method: 'GET',
    path: S,
    pathParams: SERVICE,
    // A read replica set's id answers here too, as a service whose `forked_from` names the primary
    // with `is_standby: true` (the vendor's `service get` and `db connection-string` rely on it).
    response: Service,
    successStatus: 200,
    kind: 'read',
    resource: 'service',
    secretFields: { input: [], output: ['initial_password'] },
    faultOutcomes: NO_FAULTS,
    summary: 'Get a service, or a read replica set shown as a standby service',
  }),
  'service.delete': op({
    method: 'DELETE',
    path: S,
    pathParams: SERVICE,
    successStatus: 202,
    kind: 'delete',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: goneWhen('service.get', GONE_SERVICE),
    summary: 'Delete a service',
  }),
  'service.start': op({
    method: 'POST',
    path: `${S}/start`,
    pathParams: SERVICE,
    response: Service,
    successStatus: 202,
    kind: 'mutate',
    resource: 'service',
    secretFields: { input: [], output: ['initial_password'] },
    faultOutcomes: ['unstable'],
    alreadyApplied: serviceHolds((s) => s.status === 'READY' || s.status === 'RESUMING'),
    summary: 'Start (resume) a paused service',
  }),
  'service.stop': op({
    method: 'POST',
    path: `${S}/stop`,
    pathParams: SERVICE,
    response: Service,
    successStatus: 202,
    kind: 'mutate',
    resource: 'service',
    secretFields: { input: [], output: ['initial_password'] },
    faultOutcomes: NO_FAULTS,
    alreadyApplied: serviceHolds((s) => s.status === 'PAUSED' || s.status === 'PAUSING'),
    summary: 'Stop (pause) a service',
  }),
  'service.attachToVpc': op({
    method: 'POST',
    path: `${S}/attachToVPC`,
    pathParams: SERVICE,
    body: ServiceVpcBody,
    response: MessageResponse,
    successStatus: 202,
    kind: 'mutate',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: ['unstable'],
    alreadyApplied: serviceHolds((s, i) => s.vpc_endpoint?.vpc_id === i.vpc_id),
    summary: 'Attach a service to a VPC',
  }),
  'service.detachFromVpc': op({
    method: 'POST',
    path: `${S}/detachFromVPC`,
    pathParams: SERVICE,
    body: ServiceVpcBody,
    response: MessageResponse,
    successStatus: 202,
    kind: 'mutate',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: ['unstable'],
    alreadyApplied: serviceHolds((s, i) => s.status === 'READY' && s.vpc_endpoint?.vpc_id !== i.vpc_id),
    summary: 'Detach a service from a VPC',
  }),
  'service.resize': op({
    method: 'POST',
    path: `${S}/resize`,
    pathParams: SERVICE,
    body: ResizeBody,
    response: Service,
    successStatus: 202,
    kind: 'mutate',
    resource: 'service',
    secretFields: { input: [], output: ['initial_password'] },
    faultOutcomes: ['unstable'],
    alreadyApplied: serviceHolds(
      (s, i) =>
        settled(s) &&
        String(serviceSpec(s)?.cpu_millis) === i.cpu_millis &&
        String(serviceSpec(s)?.memory_gbs) === i.memory_gbs,
    ),
    summary: 'Resize a service',
  }),
  'service.enablePooler': op({
    method: 'POST',
    path: `${S}/enablePooler`,
    pathParams: SERVICE,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: ['unstable'],
    alreadyApplied: serviceHolds((s) => poolerOn(s)),
    summary: 'Enable the connection pooler',
  }),
  'service.disablePooler': op({
    method: 'POST',
    path: `${S}/disablePooler`,
    pathParams: SERVICE,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: ['unstable'],
    alreadyApplied: serviceHolds((s) => s.status === 'READY' && !poolerOn(s)),
    summary: 'Disable the connection pooler',
  }),
  'service.fork': op({
    method: 'POST',
    path: `${S}/forkService`,
    pathParams: SERVICE,
    // Sizes may be "shared", as on create (spec.md omits the body; the vendor's OpenAPI allows it).
    body: ForkServiceBody,
    response: Service,
    successStatus: 202,
    kind: 'create',
    resource: 'service',
    secretFields: { input: [], output: ['initial_password'] },
    faultOutcomes: ['unstable', 'stuckQueued'],
    adopt: {
      list: 'service.list',
      // A fork of this service under this name; without a name the API calls it "<parent>-fork".
      match: [
        { answer: ['name'], input: 'name' },
        { answer: ['forked_from', 'service_id'], input: 'service_id' },
      ],
      goneStatuses: GONE_SERVICE,
      defaultName: { read: 'service.get', suffix: '-fork' },
      describe: (input) => `a service named ${nameOf(input)} already exists`,
    },
    summary: 'Fork a service into a new one',
  }),
  'service.updatePassword': op({
    method: 'POST',
    path: `${S}/updatePassword`,
    pathParams: SERVICE,
    body: UpdatePasswordBody,
    successStatus: 204,
    // The vendor's client accepts 200 as well; whatever body comes with it is not read.
    alsoAccepted: [200],
    kind: 'mutate',
    resource: 'service',
    secretFields: { input: ['password'], output: [] },
    faultOutcomes: NO_FAULTS,
    // Nothing to read: a password cannot be read back, and setting it again is harmless.
    alreadyApplied: NOT_CHECKED,
    summary: 'Set the service password',
  }),
  'service.setEnvironment': op({
    method: 'POST',
    path: `${S}/setEnvironment`,
    pathParams: SERVICE,
    body: SetEnvironmentBody,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: serviceHolds((s, i) => s.metadata?.environment === i.environment),
    summary: 'Tag a service DEV or PROD',
  }),
  // Not in spec.md; in the API's current dialect (the vendor's OpenAPI of 2026-08-20).
  'service.rename': op({
    method: 'POST',
    path: `${S}/rename`,
    pathParams: SERVICE,
    body: RenameServiceBody,
    response: Service,
    successStatus: 200,
    kind: 'mutate',
    resource: 'service',
    secretFields: { input: [], output: ['initial_password'] },
    faultOutcomes: NO_FAULTS,
    alreadyApplied: serviceHolds((s, i) => s.name === i.name),
    summary: 'Rename a service',
  }),
  'service.logs': op({
    method: 'GET',
    path: `${S}/logs`,
    pathParams: SERVICE,
    query: LogsQuery,
    response: ServiceLogsResponse,
    successStatus: 200,
    kind: 'read',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'Read one page of service logs, newest first',
  }),
  // Not in spec.md; preview operations of the vendor's document ("may change without notice").
  'service.metricsAvailableSeries': op({
    method: 'GET',
    path: `${S}/metrics/available-series`,
    pathParams: SERVICE,
    response: MetricSeriesNames,
    successStatus: 200,
    kind: 'read',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'List the names of the metric series a service has (preview)',
  }),
  'service.metricsSeries': op({
    // A read sent as POST: its filters go in a JSON body rather than the query string.
    method: 'POST',
    path: `${S}/metrics/series`,
    pathParams: SERVICE,
    body: MetricsSeriesBody,
    response: z.array(MetricSeries),
    successStatus: 200,
    kind: 'read',
    resource: 'service',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'Read one metric series of a service over a time window, per bucket (preview)',
  }),
  'service.setHA': op({
    method: 'POST',
    path: `${S}/setHA`,
    pathParams: SERVICE,
    body: SetHaBody,
    response: Service,
    successStatus: 202,
    kind: 'mutate',
    resource: 'service',
    secretFields: { input: [], output: ['initial_password'] },
    faultOutcomes: ['unstable'],
    alreadyApplied: serviceHolds(
      (s, i) =>
        settled(s) &&
        (i.replica_count === undefined || s.ha_replicas?.replica_count === i.replica_count) &&
        (i.sync_replica_count === undefined || s.ha_replicas?.sync_replica_count === i.sync_replica_count),
    ),
    summary: 'Set the HA replica layout',
  }),

  'replicaSet.list': op({
    method: 'GET',
    path: `${S}/replicaSets`,
    pathParams: SERVICE,
    response: z.array(ReadReplicaSet),
    successStatus: 200,
    kind: 'read',
    resource: 'replicaSet',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    summary: 'List read replica sets',
  }),
  'replicaSet.create': op({
    method: 'POST',
    path: `${S}/replicaSets`,
    pathParams: SERVICE,
    body: CreateReplicaSetBody,
    response: ReadReplicaSet,
    successStatus: 202,
    kind: 'create',
    resource: 'replicaSet',
    secretFields: NO_SECRETS,
    faultOutcomes: ['replicaSetError'],
    adopt: {
      list: 'replicaSet.list',
      match: [{ answer: ['name'], input: 'name' }],
      goneStatuses: ['deleting'],
      describe: (input) => `a replica set named ${nameOf(input)} already exists`,
    },
    summary: 'Create a read replica set',
  }),
  'replicaSet.delete': op({
    method: 'DELETE',
    path: RS,
    pathParams: REPLICA_SET,
    successStatus: 202,
    kind: 'delete',
    resource: 'replicaSet',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: replicaSetHolds((set) => set === undefined || set.status === 'deleting'),
    summary: 'Delete a read replica set',
  }),
  'replicaSet.resize': op({
    method: 'POST',
    path: `${RS}/resize`,
    pathParams: REPLICA_SET,
    body: ResizeReplicaSetBody,
    // The current dialect adds a `{message}` body, which is not read.
    successStatus: 202,
    kind: 'mutate',
    resource: 'replicaSet',
    secretFields: NO_SECRETS,
    faultOutcomes: ['replicaSetError'],
    alreadyApplied: replicaSetHolds(
      (set, i) =>
        set !== undefined &&
        String(set.cpu_millis) === i.cpu_millis &&
        String(set.memory_gbs) === i.memory_gbs,
    ),
    summary: 'Resize a read replica set',
  }),
  'replicaSet.enablePooler': op({
    method: 'POST',
    path: `${RS}/enablePooler`,
    pathParams: REPLICA_SET,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
    resource: 'replicaSet',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: replicaSetHolds((set) => set?.connection_pooler?.endpoint !== undefined),
    summary: 'Enable the pooler of a replica set',
  }),
  'replicaSet.disablePooler': op({
    method: 'POST',
    path: `${RS}/disablePooler`,
    pathParams: REPLICA_SET,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
    resource: 'replicaSet',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: replicaSetHolds(
      (set) => set !== undefined && set.connection_pooler?.endpoint === undefined,
    ),
    summary: 'Disable the pooler of a replica set',
  }),
  'replicaSet.setEnvironment': op({
    method: 'POST',
    path: `${RS}/setEnvironment`,
    pathParams: REPLICA_SET,
    body: SetEnvironmentBody,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
    resource: 'replicaSet',
    secretFields: NO_SECRETS,
    faultOutcomes: NO_FAULTS,
    alreadyApplied: replicaSetHolds((set, i) => set?.metadata?.environment === i.environment),
    summary: 'Tag a replica set DEV or PROD',
  }),
} as const;

export type Operations = typeof operations;
export type ActionName = keyof Operations;
export const ACTION_NAMES = Object.keys(operations) as ActionName[];

type GroupOf<A extends string> = A extends `${infer Group}.${string}` ? Group : never;
/** Operations whose `resource` is not the group of their name (workflow code reads it from the name). */
type ResourceNotItsGroup = {
  [A in ActionName]: [Operations[A]['resource']] extends [GroupOf<A>]
    ? [GroupOf<A>] extends [Operations[A]['resource']]
      ? never
      : A
    : A;
}[ActionName];
/** Creates whose answer lacks the field their resource's new id is read from (cloud/resources.ts). */
type CreatedIdNotAnswered = {
  [A in ActionName]: Operations[A]['kind'] extends 'create'
    ? (typeof RESOURCES)[Operations[A]['resource']]['createdIdField'] extends AnswerFieldsOf<
        Operations[A]['response']
      >
      ? never
      : A
    : never;
}[ActionName];
// Compile-time checks: either type names the operations at fault.
const _resourcesAreGroups: [ResourceNotItsGroup] extends [never] ? true : ResourceNotItsGroup = true;
const _createdIdsAnswered: [CreatedIdNotAnswered] extends [never] ? true : CreatedIdNotAnswered = true;

/** The operations that make a new resource: each states how a lost one is found and adopted. */
export type CreateAction = {
  [A in ActionName]: Operations[A]['kind'] extends 'create' ? A : never;
}[ActionName];
export const CREATE_ACTIONS = ACTION_NAMES.filter(
  (name): name is CreateAction => operations[name].kind === 'create',
);

/** The path parameters `action` takes, picked from a larger flat input (another action's). */
export function pathParamsFrom(
  action: ActionName,
  input: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return Object.fromEntries(operations[action].pathParams.map((name) => [name, input[name]]));
}

type ParamsOf<A extends ActionName> = { [K in Operations[A]['pathParams'][number]]: string };
type SchemaInput<S> = S extends z.ZodType ? z.input<S> : unknown;

/** What a caller passes: path parameters, body fields and query fields, in one flat object. */
export type ActionInput<A extends ActionName> = ParamsOf<A> &
  SchemaInput<Operations[A]['body']> &
  SchemaInput<Operations[A]['query']>;

/** What the operation answers: the validated response body, or `undefined` when it has none. */
export type ActionOutput<A extends ActionName> = Operations[A]['response'] extends z.ZodType
  ? z.output<Operations[A]['response']>
  : undefined;
