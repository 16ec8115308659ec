// The activities of the hand-written baseline: what a user who skips tideline would write for
// provision-production-service and stop-dev-services. One activity per Cloud API operation, through
// the same typed client (cloud/client.ts) tideline's activities use, so each call costs the same;
// and one activity that polls a service until a condition holds, heartbeating as it goes (Temporal's
// advice for polling every few seconds: a poll loop in the workflow would add events per poll).
import { heartbeat, sleep } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CloudClient } from '../../cloud/client';
import type { Service } from '../../cloud/models';

export interface ServiceRef {
  projectId: string;
  serviceId: string;
}

/** What a wait waits for; a name, because a workflow can only send data to an activity. */
export type ServiceCondition = 'ready' | 'attached' | 'pooler' | 'paused';

export interface WaitRequest extends ServiceRef {
  until: ServiceCondition;
  /** The VPC an `attached` wait expects. */
  vpcId?: string;
}

export interface WaitOutcome {
  status: string;
  polls: number;
  vpcHost?: string;
  poolerHost?: string;
}

export interface ListedService extends ServiceRef {
  name: string;
  status: string;
  environment?: string;
}

/** The poll schedule tideline's waits use (activities/wait.ts), written out as a user would. */
export const FIRST_INTERVAL_MS = 1_000;
const MAX_INTERVAL_MS = 15_000;

export function nextDelay(waitedMs: number): number {
  const base = Math.min(MAX_INTERVAL_MS, Math.max(FIRST_INTERVAL_MS, waitedMs * 0.1));
  return base <= FIRST_INTERVAL_MS ? base : Math.min(MAX_INTERVAL_MS, base * (0.9 + 0.2 * Math.random()));
}

function holds(service: Service, request: WaitRequest): boolean {
  if (service.status !== 'READY' && request.until !== 'paused') return false;
  switch (request.until) {
    case 'ready':
      return true;
    case 'attached':
      return service.vpc_endpoint?.vpc_id === request.vpcId;
    case 'pooler':
      return service.connection_pooler?.endpoint !== undefined;
    case 'paused':
      return service.status === 'PAUSED';
  }
}

export const ids = (ref: ServiceRef) => ({ project_id: ref.projectId, service_id: ref.serviceId });

/** The benchmark's service: the same create on both baselines. */
export async function createService(
  api: CloudClient,
  input: { projectId: string; name: string },
): Promise<ServiceRef> {
  const created = await api.service.create({
    project_id: input.projectId,
    name: input.name,
    addons: ['time-series'],
    cpu_millis: '1000',
    memory_gbs: '4',
  });
  return { projectId: input.projectId, serviceId: created.service_id! };
}

export function createBaselineActivities(api: CloudClient) {
  return {
    createService: (input: { projectId: string; name: string }) => createService(api, input),
    async attachToVpc(input: ServiceRef & { vpcId: string }): Promise<void> {
      await api.service.attachToVpc({ ...ids(input), vpc_id: input.vpcId });
    },
    async enablePooler(input: ServiceRef): Promise<void> {
      await api.service.enablePooler(ids(input));
    },
    async setEnvironment(input: ServiceRef & { environment: 'PROD' | 'DEV' }): Promise<void> {
      await api.service.setEnvironment({ ...ids(input), environment: input.environment });
    },
    async deleteService(input: ServiceRef): Promise<void> {
      await api.service.delete(ids(input));
    },
    async stopService(input: ServiceRef): Promise<void> {
      await api.service.stop(ids(input));
    },
    async listServices(input: { projectId: string }): Promise<ListedService[]> {
      const services = await api.service.list({ project_id: input.projectId });
      return services.map((s) => ({
        projectId: input.projectId,
        serviceId: s.service_id!,
        name: s.name ?? '',
        status: s.status ?? '',
        ...(s.metadata?.environment === undefined ? {} : { environment: s.metadata.environment }),
      }));
    },
    /** Polls until the condition holds; fails at once if the service is being deleted. */
    async waitForService(request: WaitRequest): Promise<WaitOutcome> {
      const began = Date.now();
      // The first poll at a random moment in the first interval, as tideline's waits do.
      await sleep(Math.round(FIRST_INTERVAL_MS * Math.random()));
      for (let polls = 1; ; polls++) {
        heartbeat(polls); // the SDK throttles these to 80 % of the heartbeat timeout
        const service = await api.service.get(ids(request));
        if (service.status === 'DELETING' || service.status === 'DELETED') {
          throw ApplicationFailure.nonRetryable(`service ${request.serviceId} is ${service.status}`);
        }
        if (holds(service, request)) {
          return {
            status: service.status ?? '',
            polls,
            ...(service.vpc_endpoint?.host ? { vpcHost: service.vpc_endpoint.host } : {}),
            ...(service.connection_pooler?.endpoint?.host
              ? { poolerHost: service.connection_pooler.endpoint.host }
              : {}),
          };
        }
        await sleep(nextDelay(Date.now() - began));
      }
    },
  };
}

export type BaselineActivities = ReturnType<typeof createBaselineActivities>;
