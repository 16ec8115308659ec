// The expert baseline's provisioning workflow (bench/baseline/README.md): the same guarantees
// tideline gives provision-production-service — the service created exactly once, deleted when the
// run fails or is cancelled, every change waited for — written with the SDK alone by someone who
// knows where Temporal's costs are. Deterministic; only types come from the activities.
import { CancellationScope, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ExpertActivities } from './expert-activities';
import type { ProvisionInput, ProvisionOutput } from './workflows';

/** The create: an activity task (it may take a while and must not run twice). */
const create = proxyActivities<ExpertActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '2s', maximumInterval: '60s', maximumAttempts: 10 },
});

/** A change and the wait for it, or a wait alone: kept alive by (held) heartbeats. */
const changes = proxyActivities<ExpertActivities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

/** Short calls whose answer is all there is: local activities, one marker each. */
const quick = proxyLocalActivities<ExpertActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '2s', maximumInterval: '60s', maximumAttempts: 10 },
});

/** Create, wait READY, attach and wait, pooler and wait, tag PROD; delete on failure or cancel. */
export async function provisionServiceExpert(input: ProvisionInput): Promise<ProvisionOutput> {
  const service = await create.createOrAdopt({ projectId: input.projectId, name: input.name });
  try {
    await changes.waitReady(service);
    const vpcHost = await changes.attachAndWait({ ...service, vpcId: input.vpcId });
    const poolerHost = await changes.poolerAndWait(service);
    await quick.setEnvironment({ ...service, environment: 'PROD' });
    return { serviceId: service.serviceId, vpcHost, poolerHost };
  } catch (error) {
    await CancellationScope.nonCancellable(() => quick.deleteService(service));
    throw error;
  }
}
