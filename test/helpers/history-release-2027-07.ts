// Release 2027-07's recordings for the replay gate (history-release-recordings.ts explains the
// scheme). The second release gate (PATCHES.release2027_07, workflows/release-gate.ts): a run
// started on 2027-07 records that gate and no patch before it — not the 2027-01 gate, nor
// concurrentCallsAsTasks, notifications, localCallAttempts, runAdmission or siblingCancelSettles
// — and takes all their new branches. Recorded again: local calls that succeed, a held step
// retried by an operator, branches side by side, and the failing parallel. Record them (never an
// older release's):
//
//   npm run record-histories -- provision-local-calls.2027-07,held-then-retried.2027-07,every-kind.2027-07,parallel-fail-fast.2027-07
import type { Release } from './history-release-recordings';

export const RELEASE_2027_07: Release = {
  name: '2027-07',
  recordedAgain: {
    // the admission and the notification plan at start, then local attach, pooler and prod.
    'provision-local-calls.2027-04': undefined,
    // held → running after the operator's retry.
    'held-then-retried.2027-04': undefined,
    // every step kind, branches side by side as activity tasks.
    'every-kind.2027-02': undefined,
    // the failing branch's cancel requests sent before the undo.
    'parallel-fail-fast.2027-06': undefined,
  },
  // The gate's marker and its TemporalChangeVersion upsert.
  addedEvents: () => ['EVENT_TYPE_MARKER_RECORDED', 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'],
  newPaths: [],
};
