// Release 2027-02's recordings for the replay gate (history-release-recordings.ts explains the
// scheme). Patch concurrentCallsAsTasks (workflows/concurrent-calls.ts): a run whose definition
// runs steps side by side asks for it at its start, and its calls beside other steps are activity
// tasks instead of local activities. Recorded again: an inline foreach two at a time (its stops
// become activity tasks) and every step kind (the read in a parallel branch does). Record them
// (never an older release's):
//
//   npm run record-histories -- stop-dev-services.2027-02,every-kind.2027-02
import type { Release } from './history-release-recordings';

const MARKER = 'EVENT_TYPE_MARKER_RECORDED';
const UPSERTED = 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES';
const COMPLETED = 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED';

export const RELEASE_2027_02: Release = {
  name: '2027-02',
  recordedAgain: {
    // the list runs locally (before the loop); the stops beside each other are activity tasks.
    'stop-dev-services.2027-01': {
      activities: { 'lock.request': 2, 'service.stop': 2, 'wait.until': 2 },
      events: [COMPLETED],
    },
    // the get in a parallel branch is an activity task; the child runbook has no parallel step.
    'every-kind.2027-01': {
      activities: { 'service.get': 1 },
      events: ['EVENT_TYPE_TIMER_FIRED', 'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED', COMPLETED],
    },
  },
  // The release gate's marker, and the patch's: each with its TemporalChangeVersion upsert.
  addedEvents: () => [MARKER, UPSERTED],
  newPaths: [],
};
