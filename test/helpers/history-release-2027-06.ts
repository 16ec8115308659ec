// Release 2027-06's recordings for the replay gate (history-release-recordings.ts explains the
// scheme). Patch siblingCancelSettles (workflows/sibling-cancellation.ts): a run with a parallel of
// several branches asks for it at its start; when a branch fails, a 1 ms timer ends the workflow
// task that cancels its siblings before compensation starts. Recorded again: the failing branch
// that cancels its sibling's wait. Record it (never an older release's):
//
//   npm run record-histories -- parallel-fail-fast.2027-06
import type { Release } from './history-release-recordings';

export const RELEASE_2027_06: Release = {
  name: '2027-06',
  recordedAgain: {
    // the cancel request is sent (its own task, ended by the timer) before the create's undo.
    'parallel-fail-fast.2027-01': undefined,
  },
  // The patches' markers (each with its TemporalChangeVersion upsert) and the timer.
  addedEvents: () => [
    'EVENT_TYPE_MARKER_RECORDED',
    'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
    'EVENT_TYPE_TIMER_STARTED',
    'EVENT_TYPE_TIMER_FIRED',
  ],
  newPaths: [],
};
