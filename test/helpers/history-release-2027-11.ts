// Release 2027-11's recordings for the replay gate (history-release-recordings.ts explains the
// scheme). Patch locksStartHeld (workflows/locks.ts): a run whose steps change a service it would
// lock asks for it at its start, then takes each lock with `lock.take`, which starts the key's lock workflow with
// the run holding it when none runs (the new type resourceHeldLockWorkflow: no acquire signal and
// no grant) and queues on it as before otherwise. Recorded again: a foreach whose iterations lock
// the services they stop; new: the lock one of those iterations held, started holding.
// Record them (never an older release's):
//
//   npm run record-histories -- stop-dev-services.2027-11,service-lock-held.2027-11
import { lockWorkflowId } from '../../contract/lock-messages';
import type { Release } from './history-release-recordings';

const RELEASE = '2027-11';
const MARKER = 'EVENT_TYPE_MARKER_RECORDED';
const UPSERTED = 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES';
const COMPLETED = 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED';

export const RELEASE_2027_11: Release = {
  name: RELEASE,
  recordedAgain: {
    // the gate, then locksStartHeld, both before the first local activity; each iteration's
    // lock.take, stop and wait, and its release.
    'stop-dev-services.2027-04': {
      activities: { 'lock.take': 2, 'wait.until': 2 },
      events: ['EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED', COMPLETED],
    },
  },
  // locksStartHeld's marker and its TemporalChangeVersion upsert.
  addedEvents: () => [MARKER, UPSERTED],
  newPaths: [
    {
      name: `service-lock-held.${RELEASE}`,
      // The lock of dev-a, which stop-dev-services.2027-11 stopped (needs that recording):
      // started holding for the iteration, then its release — no grant sent, no watch.
      covers: { activities: {}, events: ['EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED', COMPLETED] },
      run: async ({ stack }) => {
        const services = await stack.api.service.list({ project_id: stack.projectId });
        const stopped = services.find((service) => service.name === 'dev-a');
        if (stopped?.service_id === undefined) throw new Error(`stop-dev-services.${RELEASE} made no dev-a`);
        return stack.client.workflow.getHandle(
          lockWorkflowId(`service/${stack.projectId}/${stopped.service_id}`),
        );
      },
    },
  ],
};
