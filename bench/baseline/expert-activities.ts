// The expert baseline's activities: what an experienced Temporal engineer writes for the same
// provisioning (bench/baseline/README.md says why each choice is the expert one). Compared with the
// competent baseline (activities.ts): the create adopts on a retry what an earlier attempt made
// (exactly once, as tideline's create-or-adopt), a change and the wait for it are one activity,
// and a wait's first heartbeat is held until HEARTBEAT_AFTER_MS, as tideline's waits hold theirs.
import { Context, heartbeat, sleep } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CloudClient } from '../../cloud/client';
import type { Service } from '../../cloud/models';
import { createService, FIRST_INTERVAL_MS, ids, nextDelay, type ServiceRef } from './activities';

/** The heartbeat hold of tideline's waits (activities/wait.ts). */
const HEARTBEAT_AFTER_MS = 12_000;

type Until = (service: Service) => boolean;

export function createExpertActivities(api: CloudClient) {
  /** Polls until `until` holds; heartbeats only once the wait is long enough to need them. */
  async function pollUntil(ref: ServiceRef, until: Until): Promise<Service> {
    const began = Date.now();
    await sleep(Math.round(FIRST_INTERVAL_MS * Math.random()));
    for (let polls = 1; ; polls++) {
      if (Date.now() - began >= HEARTBEAT_AFTER_MS) heartbeat(polls);
      const service = await api.service.get(ids(ref));
      if (service.status === 'DELETING' || service.status === 'DELETED')
        throw ApplicationFailure.nonRetryable(`service ${ref.serviceId} is ${service.status}`);
      if (service.status === 'READY' && until(service)) return service;
      await sleep(nextDelay(Date.now() - began));
    }
  }

  return {
    /** Creates the service; a retry first adopts what an earlier attempt of this run created. */
    async createOrAdopt(input: { projectId: string; name: string }): Promise<ServiceRef> {
      if (Context.current().info.attempt > 1) {
        const listed = await api.service.list({ project_id: input.projectId });
        const made = listed.find(
          (s) => s.name === input.name && s.status !== 'DELETING' && s.status !== 'DELETED',
        );
        if (made?.service_id) return { projectId: input.projectId, serviceId: made.service_id };
      }
      return createService(api, input);
    },
    async waitReady(ref: ServiceRef): Promise<void> {
      await pollUntil(ref, () => true);
    },
    /** Attaches (unless a retry finds it attached) and waits for the VPC endpoint. */
    async attachAndWait(input: ServiceRef & { vpcId: string }): Promise<string | undefined> {
      const attached = (s: Service) => s.vpc_endpoint?.vpc_id === input.vpcId;
      if (Context.current().info.attempt === 1 || !attached(await api.service.get(ids(input))))
        await api.service.attachToVpc({ ...ids(input), vpc_id: input.vpcId });
      return (await pollUntil(input, attached)).vpc_endpoint?.host;
    },
    /** Enables the pooler (unless a retry finds it on) and waits for its endpoint. */
    async poolerAndWait(ref: ServiceRef): Promise<string | undefined> {
      const enabled = (s: Service) => s.connection_pooler?.endpoint !== undefined;
      if (Context.current().info.attempt === 1 || !enabled(await api.service.get(ids(ref))))
        await api.service.enablePooler(ids(ref));
      return (await pollUntil(ref, enabled)).connection_pooler?.endpoint?.host;
    },
    async setEnvironment(input: ServiceRef & { environment: 'PROD' | 'DEV' }): Promise<void> {
      await api.service.setEnvironment({ ...ids(input), environment: input.environment });
    },
    async deleteService(ref: ServiceRef): Promise<void> {
      await api.service.delete(ids(ref));
    },
  };
}

export type ExpertActivities = ReturnType<typeof createExpertActivities>;
