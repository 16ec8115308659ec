// The hand-written baseline's workflows: provision-production-service and stop-dev-services as a
// competent user would write them with the Temporal TypeScript SDK alone — a `proxyActivities` call
// per API operation and one heartbeating poll activity per wait. Bundled on its own by the
// baseline worker (bench/baseline/worker.ts); deterministic, and only types come from the
// activities.
import { proxyActivities } from '@temporalio/workflow';
import type { BaselineActivities, ServiceRef } from './activities';

/** Calls: tideline's timeouts and retries for mutating calls (workflows/activity-policies.ts). */
const calls = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '2s', maximumInterval: '60s', maximumAttempts: 10 },
});

/** Waits: long-running, kept alive by heartbeats, retried if the worker dies. */
const waits = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

export interface ProvisionInput {
  projectId: string;
  name: string;
  vpcId: string;
}

export interface ProvisionOutput {
  serviceId: string;
  vpcHost?: string | undefined;
  poolerHost?: string | undefined;
}

/** Create, wait READY, attach, wait attached, pooler, wait for it, tag PROD; delete on failure. */
export async function provisionService(input: ProvisionInput): Promise<ProvisionOutput> {
  const service = await calls.createService({ projectId: input.projectId, name: input.name });
  try {
    await waits.waitForService({ ...service, until: 'ready' });
    await calls.attachToVpc({ ...service, vpcId: input.vpcId });
    const attached = await waits.waitForService({ ...service, until: 'attached', vpcId: input.vpcId });
    await calls.enablePooler(service);
    const pooler = await waits.waitForService({ ...service, until: 'pooler' });
    await calls.setEnvironment({ ...service, environment: 'PROD' });
    return { serviceId: service.serviceId, vpcHost: attached.vpcHost, poolerHost: pooler.poolerHost };
  } catch (error) {
    // The service this run created does not outlive a failed run.
    await calls.deleteService(service);
    throw error;
  }
}

export interface StopDevInput {
  projectId: string;
  namePrefix: string;
  concurrency: number;
}

/** List, then stop every READY DEV service and wait until it is PAUSED, `concurrency` at a time. */
export async function stopDevServices(input: StopDevInput): Promise<{ stopped: number }> {
  const listed = await calls.listServices({ projectId: input.projectId });
  const todo: ServiceRef[] = listed
    .filter((s) => s.environment === 'DEV' && s.status === 'READY' && s.name.startsWith(input.namePrefix))
    .map((s) => ({ projectId: s.projectId, serviceId: s.serviceId }));
  let next = 0;
  const lane = async () => {
    while (next < todo.length) {
      const service = todo[next++]!;
      await calls.stopService(service);
      await waits.waitForService({ ...service, until: 'paused' });
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.concurrency, todo.length) }, lane));
  return { stopped: todo.length };
}
export { provisionServiceExpert } from './expert-workflows';
