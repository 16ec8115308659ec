// Handlers of replicaSet.*: creating → active, resizing → active, deleting → gone; pooler and
// environment changes apply at once.
import { timestamp } from '../ids';
import { ALLOWED_SIZES } from '../../cloud/requests';
import { badRequest, conflict } from '../errors';
import { hasSnapshot } from '../lifecycle';
import type { ReplicaSetRecord, ServiceRecord } from '../state';
import { replicaSetView } from '../views';
import type { HandlerContext, HandlerTable } from './handler-types';
import { requireReplicaSet, requireRunningIdle, requireService } from './lookups';

type ReplicaSetAction = Extract<keyof HandlerTable, `replicaSet.${string}`>;
type SetScoped = Exclude<ReplicaSetAction, 'replicaSet.list' | 'replicaSet.create'>;

function locate(ctx: HandlerContext<SetScoped>): { service: ServiceRecord; set: ReplicaSetRecord } {
  const service = requireService(ctx.world, ctx.project.id, ctx.params.service_id);
  return { service, set: requireReplicaSet(service, ctx.params.replica_set_id) };
}

function requireActive(set: ReplicaSetRecord): void {
  if (set.status !== 'active')
    throw conflict(`replica set ${set.id} is ${set.status}; retry when it is active`);
}

function checkSize(cpuMillis: number, memoryGbs: number): void {
  if (!ALLOWED_SIZES.some(([cpu, memory]) => Number(cpu) === cpuMillis && Number(memory) === memoryGbs)) {
    const allowed = ALLOWED_SIZES.map(([cpu, memory]) => `${cpu}/${memory}`).join(', ');
    throw badRequest(`cpu_millis: size ${cpuMillis}/${memoryGbs} is not allowed; allowed pairs: ${allowed}`);
  }
}

export const replicaSetHandlers: Pick<HandlerTable, ReplicaSetAction> = {
  'replicaSet.list': ({ world, project, params }) => {
    const service = requireService(world, project.id, params.service_id);
    return service.replicaSets.map((set) => replicaSetView(service, set));
  },

  'replicaSet.create': (ctx) => {
    const { world, project, params, body, now } = ctx;
    const service = requireService(world, project.id, params.service_id);
    checkSize(body.cpu_millis, body.memory_gbs);
    requireRunningIdle(service);
    if (!hasSnapshot(service, now, world.pace)) {
      throw conflict(
        `no backup of service ${service.id} exists yet; read replicas can be added after its first snapshot`,
      );
    }
    const failed = ctx.outcome('replicaSetError') !== undefined;
    const set: ReplicaSetRecord = {
      id: world.ids.shortId(),
      name: body.name,
      nodes: body.nodes,
      cpuMillis: body.cpu_millis,
      memoryGbs: body.memory_gbs,
      environment: 'DEV',
      poolerEnabled: false,
      port: world.ids.port(),
      poolerPort: world.ids.port(),
      status: 'creating',
      steps: [{ at: now + world.pace.of('replicaSetCreating'), status: failed ? 'error' : 'active' }],
      created: timestamp(now),
    };
    service.replicaSets.push(set);
    world.store.noteId(set.id);
    world.store.changed();
    return replicaSetView(service, set);
  },

  'replicaSet.delete': (ctx) => {
    const { set } = locate(ctx);
    if (set.status === 'deleting') throw conflict(`replica set ${set.id} is already being deleted`);
    set.status = 'deleting';
    set.steps = [
      {
        at: ctx.now + ctx.world.pace.of('replicaSetDeleting'),
        status: 'deleting',
        effect: { kind: 'remove' },
      },
    ];
    ctx.world.store.changed();
    return undefined;
  },

  'replicaSet.resize': (ctx) => {
    const { set } = locate(ctx);
    // A set in `error` may be resized: that is how an operator repairs it.
    if (set.status !== 'error') requireActive(set);
    const failed = ctx.outcome('replicaSetError') !== undefined;
    const at = ctx.now + ctx.world.pace.of('replicaSetResizing');
    const effect = {
      kind: 'resize',
      cpuMillis: Number(ctx.body.cpu_millis),
      memoryGbs: Number(ctx.body.memory_gbs),
    } as const;
    set.status = 'resizing';
    set.steps = [failed ? { at, status: 'error' } : { at, status: 'active', effect }];
    ctx.world.store.changed();
    return undefined;
  },

  'replicaSet.enablePooler': (ctx) => {
    const { set } = locate(ctx);
    requireActive(set);
    if (set.poolerEnabled)
      throw conflict(`the connection pooler of replica set ${set.id} is already enabled`);
    set.poolerEnabled = true;
    ctx.world.store.changed();
    return { message: `connection pooler of replica set ${set.id} enabled` };
  },

  'replicaSet.disablePooler': (ctx) => {
    const { set } = locate(ctx);
    requireActive(set);
    if (!set.poolerEnabled) throw conflict(`the connection pooler of replica set ${set.id} is not enabled`);
    set.poolerEnabled = false;
    ctx.world.store.changed();
    return { message: `connection pooler of replica set ${set.id} disabled` };
  },

  'replicaSet.setEnvironment': (ctx) => {
    const { set } = locate(ctx);
    if (set.status === 'deleting') throw conflict(`replica set ${set.id} is being deleted`);
    set.environment = ctx.body.environment;
    ctx.world.store.changed();
    return { message: `environment of replica set ${set.id} set to ${ctx.body.environment}` };
  },
};
