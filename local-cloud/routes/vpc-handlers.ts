// Handlers of project.list, vpc.* and peering.*.
import type { ActionName } from '../../cloud/operations';
import { conflict } from '../errors';
import { attachedOrAttachingVpc } from '../lifecycle';
import type { PeeringRecord, VpcRecord } from '../state';
import { peeringView, vpcView } from '../views';
import type { HandlerTable } from './handler-types';
import { requirePeering, requireVpc } from './lookups';

type VpcAction = Extract<ActionName, 'project.list' | `vpc.${string}` | `peering.${string}`>;

export const vpcHandlers: Pick<HandlerTable, VpcAction> = {
  'project.list': ({ project }) => [{ id: project.id, name: project.name }],

  'vpc.list': ({ world, project }) => world.store.vpcs(project.id).map(vpcView),

  'vpc.create': ({ world, project, body, now }) => {
    const vpc: VpcRecord = {
      id: world.ids.numericId(),
      projectId: project.id,
      name: body.name,
      cidr: body.cidr,
      regionCode: body.region_code,
      createdAt: now,
      readyAt: now + world.pace.of('vpcProvisioning'),
      peerings: [],
    };
    world.store.addVpc(vpc);
    return vpcView(vpc);
  },

  'vpc.get': ({ world, project, params }) => vpcView(requireVpc(world, project.id, params.vpc_id)),

  'vpc.delete': ({ world, project, params }) => {
    const vpc = requireVpc(world, project.id, params.vpc_id);
    const attached = world.store
      .services(project.id)
      .filter((service) => attachedOrAttachingVpc(service) === vpc.id)
      .map((service) => service.id);
    if (attached.length > 0) {
      throw conflict(`vpc ${vpc.id} still has attached services (${attached.join(', ')}); detach them first`);
    }
    world.store.removeVpc(project.id, vpc.id);
    return undefined;
  },

  'vpc.rename': ({ world, project, params, body }) => {
    const vpc = requireVpc(world, project.id, params.vpc_id);
    vpc.name = body.name;
    world.store.changed();
    return vpcView(vpc);
  },

  'peering.list': ({ world, project, params }) =>
    requireVpc(world, project.id, params.vpc_id).peerings.map(peeringView),

  'peering.create': (ctx) => {
    const { world, project, params, body, now } = ctx;
    const vpc = requireVpc(world, project.id, params.vpc_id);
    if (now < vpc.readyAt) {
      throw conflict(`vpc ${vpc.id} is still being provisioned and cannot be peered yet; retry shortly`);
    }
    const duplicate = vpc.peerings.find(
      (p) =>
        p.status !== 'failed' && p.peerAccountId === body.peer_account_id && p.peerVpcId === body.peer_vpc_id,
    );
    if (duplicate) {
      throw conflict(`vpc ${vpc.id} already has peering ${duplicate.id} with ${body.peer_vpc_id}`);
    }
    const failure = ctx.outcome('peeringFailed');
    const at = now + world.pace.of('peeringPending');
    const peering: PeeringRecord = {
      id: world.ids.numericId(),
      peerAccountId: body.peer_account_id,
      peerRegionCode: body.peer_region_code,
      peerVpcId: body.peer_vpc_id,
      status: 'pending',
      errorMessage: null,
      provisionedId: null,
      steps: [
        failure
          ? {
              at,
              status: 'failed',
              errorMessage:
                failure.errorMessage ??
                `peer VPC ${body.peer_vpc_id} was not found in account ${body.peer_account_id} (${body.peer_region_code})`,
            }
          : { at, status: 'active', provisionedId: `pcx-${world.ids.hex(17)}` },
      ],
    };
    vpc.peerings.push(peering);
    world.store.noteId(peering.id);
    world.store.changed();
    return peeringView(peering);
  },

  'peering.get': ({ world, project, params }) =>
    peeringView(requirePeering(requireVpc(world, project.id, params.vpc_id), params.peering_id)),

  'peering.delete': ({ world, project, params }) => {
    const vpc = requireVpc(world, project.id, params.vpc_id);
    const peering = requirePeering(vpc, params.peering_id);
    vpc.peerings = vpc.peerings.filter((candidate) => candidate !== peering);
    world.store.changed();
    return undefined;
  },
};
