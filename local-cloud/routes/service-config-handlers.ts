// Handlers of service configuration changes. Each puts a READY (or UNSTABLE) service into
// CONFIGURING; the effect shows once it is READY again. A busy service answers 409.
import { conflict, notFound } from '../errors';
import { attachedOrAttachingVpc, startChange } from '../lifecycle';
import type { ServiceEffect, ServiceRecord } from '../state';
import { serviceView } from '../views';
import type { HandlerContext, HandlerTable } from './handler-types';
import { requireRunningIdle, requireService } from './lookups';

type ConfigAction =
  | 'service.attachToVpc'
  | 'service.detachFromVpc'
  | 'service.resize'
  | 'service.enablePooler'
  | 'service.disablePooler'
  | 'service.setHA';

/** Looks up the service and checks it can take a change now. */
function idleService(ctx: HandlerContext<ConfigAction>): ServiceRecord {
  const service = requireService(ctx.world, ctx.project.id, ctx.params.service_id);
  requireRunningIdle(service);
  return service;
}

function change(
  ctx: HandlerContext<ConfigAction>,
  service: ServiceRecord,
  duration: number,
  effect: ServiceEffect,
): void {
  startChange(service, ctx.now, duration, effect, ctx.outcome('unstable') !== undefined);
  ctx.world.store.changed();
}

export const serviceConfigHandlers: Pick<HandlerTable, ConfigAction> = {
  'service.attachToVpc': (ctx) => {
    const service = idleService(ctx);
    const vpc = ctx.world.store.vpc(ctx.project.id, ctx.body.vpc_id);
    if (!vpc) throw notFound(`vpc ${ctx.body.vpc_id} not found`);
    const current = attachedOrAttachingVpc(service);
    if (current !== null) {
      throw conflict(`service ${service.id} is already attached to vpc ${current}; detach it first`);
    }
    change(ctx, service, ctx.world.pace.of('vpcAttach'), { kind: 'attach', vpcId: vpc.id });
    return { message: `service ${service.id} is being attached to vpc ${vpc.id}` };
  },

  'service.detachFromVpc': (ctx) => {
    const service = idleService(ctx);
    if (service.vpcId === null) throw conflict(`service ${service.id} is not attached to a vpc`);
    if (service.vpcId !== ctx.body.vpc_id) {
      throw conflict(`service ${service.id} is attached to vpc ${service.vpcId}, not ${ctx.body.vpc_id}`);
    }
    change(ctx, service, ctx.world.pace.of('vpcDetach'), { kind: 'detach' });
    return { message: `service ${service.id} is being detached from vpc ${ctx.body.vpc_id}` };
  },

  'service.resize': (ctx) => {
    const service = idleService(ctx);
    const effect = {
      kind: 'resize',
      cpuMillis: Number(ctx.body.cpu_millis),
      memoryGbs: Number(ctx.body.memory_gbs),
    } as const;
    change(ctx, service, ctx.world.pace.of('resize'), effect);
    return serviceView(service);
  },

  'service.enablePooler': (ctx) => {
    const service = idleService(ctx);
    if (service.poolerEnabled)
      throw conflict(`the connection pooler of service ${service.id} is already enabled`);
    change(ctx, service, ctx.world.pace.of('pooler'), { kind: 'pooler', enabled: true });
    return { message: `connection pooler of service ${service.id} is being enabled` };
  },

  'service.disablePooler': (ctx) => {
    const service = idleService(ctx);
    if (!service.poolerEnabled)
      throw conflict(`the connection pooler of service ${service.id} is not enabled`);
    change(ctx, service, ctx.world.pace.of('pooler'), { kind: 'pooler', enabled: false });
    return { message: `connection pooler of service ${service.id} is being disabled` };
  },

  'service.setHA': (ctx) => {
    const service = idleService(ctx);
    const replicaCount = ctx.body.replica_count ?? service.haReplicas;
    // Synchronous replicas need two replicas; shrinking below that drops the synchronous one.
    const syncReplicaCount = ctx.body.sync_replica_count ?? (replicaCount === 2 ? service.syncReplicas : 0);
    change(ctx, service, ctx.world.pace.of('setHA'), { kind: 'ha', replicaCount, syncReplicaCount });
    return serviceView(service);
  },
};
