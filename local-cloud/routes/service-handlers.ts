// Handlers of the service lifecycle: list, create, get, delete, start, stop, fork, password,
// environment, logs and metrics. Configuration changes live in service-config-handlers.ts.
import type { ServiceType } from '../../cloud/models';
import { serviceTypeOfAddons } from '../../cloud/requests';
import { badRequest, conflict } from '../errors';
import { generatePassword, timestamp } from '../ids';
import { SETTLED_RUNNING, hasSnapshot, planProvisioning, startTransition } from '../lifecycle';
import { logsPage } from '../logs';
import { METRIC_SERIES_NAMES, metricSeries } from '../metrics';
import type { ServiceRecord } from '../state';
import { SHARED_SIZE, serviceView, standbyServiceView } from '../views';
import type { World } from '../world';
import type { HandlerContext, HandlerTable } from './handler-types';
import { busyMessage, findReplicaSet, requireRunningIdle, requireService } from './lookups';

const DEFAULT_SIZE = { cpuMillis: 500, memoryGbs: 2 } as const;

function sizeFrom(
  cpu: string | undefined,
  memory: string | undefined,
  fallback: { cpuMillis: number; memoryGbs: number },
) {
  if (cpu === undefined || memory === undefined) return { ...fallback };
  if (cpu === 'shared') return { ...SHARED_SIZE };
  return { cpuMillis: Number(cpu), memoryGbs: Number(memory) };
}

interface NewService {
  projectId: string;
  name: string;
  regionCode: string;
  serviceType: ServiceType;
  size: { cpuMillis: number; memoryGbs: number };
  haReplicas: number;
  environment: 'DEV' | 'PROD';
  forkedFrom: ServiceRecord['forkedFrom'];
}

/** Creates a QUEUED service record (create and fork) and answers with its one-time password. */
function provision(
  ctx: Pick<HandlerContext<'service.create'>, 'world' | 'now' | 'outcome'>,
  spec: NewService,
) {
  const { world, now } = ctx;
  const stuck = ctx.outcome('stuckQueued');
  const unstable = stuck ? undefined : ctx.outcome('unstable');
  const service: ServiceRecord = {
    id: world.ids.shortId(),
    projectId: spec.projectId,
    name: spec.name,
    regionCode: spec.regionCode,
    serviceType: spec.serviceType,
    created: timestamp(now, world.ids.microseconds()),
    createdAt: now,
    status: 'QUEUED',
    steps: planProvisioning(now, world.pace, stuck ? 'stuckQueued' : unstable ? 'unstable' : undefined),
    resourceId: world.ids.shortId(),
    cpuMillis: spec.size.cpuMillis,
    memoryGbs: spec.size.memoryGbs,
    haReplicas: spec.haReplicas,
    syncReplicas: 0,
    environment: spec.environment,
    poolerEnabled: false,
    vpcId: null,
    port: world.ids.port(),
    poolerPort: world.ids.port(),
    vpcPort: world.ids.port(),
    forkedFrom: spec.forkedFrom,
    firstReadyAt: null,
    usage: {
      cpuShare: world.ids.share(0.05, 0.4),
      memoryShare: world.ids.share(0.2, 0.7),
      storageMb: Math.round(world.ids.share(20, 2000)),
    },
    passwordChangedAt: null,
    replicaSets: [],
  };
  world.store.addService(service);
  const password = generatePassword();
  world.passwords.set(service.id, password);
  return serviceView(service, password);
}

function checkForkable(world: World, parent: ServiceRecord, ctx: HandlerContext<'service.fork'>): void {
  const { body, now } = ctx;
  if (parent.status !== 'READY' && parent.status !== 'PAUSED') {
    throw badRequest(`service ${parent.id} is ${parent.status}; only READY or PAUSED services can be forked`);
  }
  if (body.fork_strategy === 'LAST_SNAPSHOT' && !hasSnapshot(parent, now, world.pace)) {
    throw badRequest(
      `no backups or snapshots are available yet for service ${parent.id}; retry later or fork with fork_strategy NOW`,
    );
  }
  if (body.fork_strategy === 'PITR' && body.target_time !== undefined) {
    const target = Date.parse(body.target_time);
    if (target < parent.createdAt || target > now) {
      throw badRequest('target_time: must lie between the service creation time and now');
    }
  }
}

type ServiceAction = Extract<
  keyof HandlerTable,
  | 'service.list'
  | 'service.create'
  | 'service.get'
  | 'service.delete'
  | 'service.start'
  | 'service.stop'
  | 'service.fork'
  | 'service.updatePassword'
  | 'service.setEnvironment'
  | 'service.rename'
  | 'service.logs'
  | 'service.metricsAvailableSeries'
  | 'service.metricsSeries'
>;

export const serviceHandlers: Pick<HandlerTable, ServiceAction> = {
  'service.list': ({ world, project }) =>
    world.store.services(project.id).map((service) => serviceView(service)),

  'service.create': (ctx) => {
    const { body, world, project } = ctx;
    return provision(ctx, {
      projectId: project.id,
      name: body.name,
      regionCode: body.region_code ?? world.defaultRegion,
      serviceType: serviceTypeOfAddons(body.addons),
      size: sizeFrom(body.cpu_millis, body.memory_gbs, DEFAULT_SIZE),
      haReplicas: body.replica_count ?? 0,
      environment: body.environment_tag ?? 'DEV',
      forkedFrom: null,
    });
  },

  // The real API resolves a read replica set's id here too (as a standby service).
  'service.get': ({ world, project, params }) => {
    const service = world.store.service(project.id, params.service_id);
    if (service) return serviceView(service);
    const replica = findReplicaSet(world, project.id, params.service_id);
    if (replica) return standbyServiceView(replica.primary, replica.set);
    return serviceView(requireService(world, project.id, params.service_id));
  },

  'service.delete': ({ world, project, params, now }) => {
    const service = requireService(world, project.id, params.service_id);
    if (service.status === 'DELETING') throw conflict(busyMessage(service.id, service.status));
    startTransition(service, now, 'DELETING', 'DELETED', world.pace.of('deleting'), { kind: 'remove' });
    world.store.changed();
    return undefined;
  },

  'service.start': (ctx) => {
    const { world, project, params, now } = ctx;
    const service = requireService(world, project.id, params.service_id);
    if (SETTLED_RUNNING.includes(service.status)) {
      throw badRequest(
        `service ${service.id} is ${service.status}, not PAUSED; only a paused service can be started`,
      );
    }
    if (service.status !== 'PAUSED') throw conflict(busyMessage(service.id, service.status));
    const end = ctx.outcome('unstable') ? 'UNSTABLE' : 'READY';
    startTransition(service, now, 'RESUMING', end, world.pace.of('resuming'));
    world.store.changed();
    return serviceView(service);
  },

  'service.stop': ({ world, project, params, now }) => {
    const service = requireService(world, project.id, params.service_id);
    if (service.status === 'PAUSED') throw badRequest(`service ${service.id} is already PAUSED`);
    requireRunningIdle(service);
    startTransition(service, now, 'PAUSING', 'PAUSED', world.pace.of('pausing'));
    world.store.changed();
    return serviceView(service);
  },

  'service.fork': (ctx) => {
    const { world, project, params, body } = ctx;
    const parent = requireService(world, project.id, params.service_id);
    checkForkable(world, parent, ctx);
    return provision(ctx, {
      projectId: project.id,
      name: body.name ?? `${parent.name}-fork`,
      regionCode: parent.regionCode,
      serviceType: parent.serviceType,
      size: sizeFrom(body.cpu_millis, body.memory_gbs, parent),
      haReplicas: 0,
      environment: body.environment_tag ?? 'DEV',
      forkedFrom: { projectId: parent.projectId, serviceId: parent.id },
    });
  },

  'service.updatePassword': ({ world, project, params, body, now }) => {
    const service = requireService(world, project.id, params.service_id);
    requireRunningIdle(service);
    // Kept only as a digest, outside the state: no answer or state file ever holds it.
    world.passwords.set(service.id, body.password);
    service.passwordChangedAt = now;
    world.store.changed();
    return undefined;
  },

  'service.setEnvironment': ({ world, project, params, body }) => {
    const service = requireService(world, project.id, params.service_id);
    if (service.status === 'DELETING') throw conflict(busyMessage(service.id, service.status));
    service.environment = body.environment;
    world.store.changed();
    return { message: `environment of service ${service.id} set to ${body.environment}` };
  },

  'service.rename': ({ world, project, params, body }) => {
    const service = requireService(world, project.id, params.service_id);
    if (service.status === 'DELETING') throw conflict(busyMessage(service.id, service.status));
    service.name = body.name;
    world.store.changed();
    return serviceView(service);
  },

  'service.logs': ({ world, project, params, query, now }) => {
    const service = requireService(world, project.id, params.service_id);
    return logsPage(service, query, now, world.logs);
  },

  'service.metricsAvailableSeries': ({ world, project, params }) => {
    requireService(world, project.id, params.service_id);
    return [...METRIC_SERIES_NAMES];
  },

  'service.metricsSeries': ({ world, project, params, body, now, anomaly }) => {
    const service = requireService(world, project.id, params.service_id);
    return metricSeries(service, body, now, anomaly(service, body.name));
  },
};
