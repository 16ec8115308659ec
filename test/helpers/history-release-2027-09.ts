// Release 2027-09's recordings for the replay gate (history-release-recordings.ts explains the
// scheme). Patch admissionPlansNotifications: `run.admit` also answers which notification targets
// hear the run, so a top-level run no longer runs `notify.plan` (one local-activity marker fewer).
// The third release gate (PATCHES.release2027_09, workflows/release-gate.ts) folds it in: a run
// started on 2027-09 records that gate and no other patch. Recorded again: local calls that
// succeed, a held step retried by an operator, branches side by side, and the failing parallel.
// Record them (never an older release's):
//
//   npm run record-histories -- provision-local-calls.2027-09,held-then-retried.2027-09,every-kind.2027-09,parallel-fail-fast.2027-09
import type { Release } from './history-release-recordings';

export const RELEASE_2027_09: Release = {
  name: '2027-09',
  recordedAgain: {
    // the admission alone at start (no notify.plan), then local attach, pooler and prod.
    'provision-local-calls.2027-07': undefined,
    // held → running after the operator's retry.
    'held-then-retried.2027-07': undefined,
    // every step kind, branches side by side as activity tasks.
    'every-kind.2027-07': undefined,
    // the failing branch's cancel requests sent before the undo.
    'parallel-fail-fast.2027-07': undefined,
  },
  // The gate's marker and its TemporalChangeVersion upsert.
  addedEvents: () => ['EVENT_TYPE_MARKER_RECORDED', 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'],
  newPaths: [],
};
