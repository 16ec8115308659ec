// The operation catalogue: every Cloud API operation, once. The typed client, the local cloud's
// router, the activities and the runbook language's action catalogue are all built from this table.
import { z } from 'zod';
import {
  AuthInfo,
  MessageResponse,
  Peering,
  Project,
  ReadReplicaSet,
  Service,
  ServiceLogsResponse,
  Vpc,
  VpcRenameResponse,
} from './models';
import {
  CreatePeeringBody,
  CreateReplicaSetBody,
  CreateServiceBody,
  CreateVpcBody,
  ForkServiceBody,
  LogsQuery,
  RenameServiceBody,
  RenameVpcBody,
  ResizeBody,
  ResizeReplicaSetBody,
  ServiceVpcBody,
  SetEnvironmentBody,
  SetHaBody,
  UpdatePasswordBody,
} from './requests';

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

export interface OperationDef<
  Params extends readonly PathParam[] = readonly PathParam[],
  Body extends z.ZodType | undefined = z.ZodType | undefined,
  Query extends z.ZodType | undefined = z.ZodType | undefined,
  Response extends z.ZodType | undefined = z.ZodType | undefined,
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
  readonly kind: OperationKind;
  readonly summary: string;
}

function op<
  const Params extends readonly PathParam[],
  Body extends z.ZodType | undefined = undefined,
  Query extends z.ZodType | undefined = undefined,
  Response extends z.ZodType | undefined = undefined,
>(def: {
  method: HttpMethod;
  path: string;
  pathParams: Params;
  body?: Body;
  query?: Query;
  response?: Response;
  successStatus: SuccessStatus;
  alsoAccepted?: readonly SuccessStatus[];
  readBack?: ReadBackAction;
  kind: OperationKind;
  summary: string;
}): OperationDef<Params, Body, Query, Response> {
  return {
    ...def,
    body: def.body as Body,
    query: def.query as Query,
    response: def.response as Response,
    alsoAccepted: def.alsoAccepted ?? [],
    readBack: def.readBack,
  };
}

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
    summary: 'Who the key pair is: its name, project (with plan type) and issuing user',
  }),

  'project.list': op({
    method: 'GET',
    path: '/projects',
    pathParams: [],
    response: z.array(Project),
    successStatus: 200,
    kind: 'read',
    summary: 'List the projects the key can see',
  }),

  'vpc.list': op({
    method: 'GET',
    path: '/projects/{project_id}/vpcs',
    pathParams: PROJECT,
    response: z.array(Vpc),
    successStatus: 200,
    kind: 'read',
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
    summary: 'Create a VPC',
  }),
  'vpc.get': op({
    method: 'GET',
    path: V,
    pathParams: VPC,
    response: Vpc,
    successStatus: 200,
    kind: 'read',
    summary: 'Get a VPC',
  }),
  'vpc.delete': op({
    method: 'DELETE',
    path: V,
    pathParams: VPC,
    successStatus: 204,
    kind: 'delete',
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
    summary: 'Rename a VPC',
  }),

  'peering.list': op({
    method: 'GET',
    path: `${V}/peerings`,
    pathParams: VPC,
    response: z.array(Peering),
    successStatus: 200,
    kind: 'read',
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
    summary: 'Peer a VPC with an external cloud account',
  }),
  'peering.get': op({
    method: 'GET',
    path: `${V}/peerings/{peering_id}`,
    pathParams: PEERING,
    response: Peering,
    successStatus: 200,
    kind: 'read',
    summary: 'Get a peering',
  }),
  'peering.delete': op({
    method: 'DELETE',
    path: `${V}/peerings/{peering_id}`,
    pathParams: PEERING,
    successStatus: 204,
    kind: 'delete',
    summary: 'Delete a peering',
  }),

  'service.list': op({
    method: 'GET',
    path: '/projects/{project_id}/services',
    pathParams: PROJECT,
    response: z.array(Service),
    successStatus: 200,
    kind: 'read',
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
    summary: 'Get a service, or a read replica set shown as a standby service',
  }),
  'service.delete': op({
    method: 'DELETE',
    path: S,
    pathParams: SERVICE,
    successStatus: 202,
    kind: 'delete',
    summary: 'Delete a service',
  }),
  'service.start': op({
    method: 'POST',
    path: `${S}/start`,
    pathParams: SERVICE,
    response: Service,
    successStatus: 202,
    kind: 'mutate',
    summary: 'Start (resume) a paused service',
  }),
  'service.stop': op({
    method: 'POST',
    path: `${S}/stop`,
    pathParams: SERVICE,
    response: Service,
    successStatus: 202,
    kind: 'mutate',
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
    summary: 'Resize a service',
  }),
  'service.enablePooler': op({
    method: 'POST',
    path: `${S}/enablePooler`,
    pathParams: SERVICE,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
    summary: 'Enable the connection pooler',
  }),
  'service.disablePooler': op({
    method: 'POST',
    path: `${S}/disablePooler`,
    pathParams: SERVICE,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
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
    summary: 'Read one page of service logs, newest first',
  }),
  'service.setHA': op({
    method: 'POST',
    path: `${S}/setHA`,
    pathParams: SERVICE,
    body: SetHaBody,
    response: Service,
    successStatus: 202,
    kind: 'mutate',
    summary: 'Set the HA replica layout',
  }),

  'replicaSet.list': op({
    method: 'GET',
    path: `${S}/replicaSets`,
    pathParams: SERVICE,
    response: z.array(ReadReplicaSet),
    successStatus: 200,
    kind: 'read',
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
    summary: 'Create a read replica set',
  }),
  'replicaSet.delete': op({
    method: 'DELETE',
    path: RS,
    pathParams: REPLICA_SET,
    successStatus: 202,
    kind: 'delete',
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
    summary: 'Resize a read replica set',
  }),
  'replicaSet.enablePooler': op({
    method: 'POST',
    path: `${RS}/enablePooler`,
    pathParams: REPLICA_SET,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
    summary: 'Enable the pooler of a replica set',
  }),
  'replicaSet.disablePooler': op({
    method: 'POST',
    path: `${RS}/disablePooler`,
    pathParams: REPLICA_SET,
    response: MessageResponse,
    successStatus: 200,
    kind: 'mutate',
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
    summary: 'Tag a replica set DEV or PROD',
  }),
} as const;

export type Operations = typeof operations;
export type ActionName = keyof Operations;
export const ACTION_NAMES = Object.keys(operations) as ActionName[];

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
