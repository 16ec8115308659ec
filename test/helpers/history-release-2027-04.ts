// Release 2027-04's recordings for the replay gate (history-release-recordings.ts explains the
// scheme). Patch localCallAttempts (workflows/local-calls.ts): a run (or foreach batch) that has
// calls run as local activities asks for it at its start; each local call then answers
// `{ value, attempt }` and names its step and attempt in its failures' details, and the step's
// record keeps the count. Release 2027-03's notifications patch (asked at the start of every
// top-level run, then its `notify.plan` local activity) is in these histories too. Recorded
// again: local calls that succeed, a local call that fails and is undone, a held step retried by
// an operator, and a foreach whose list runs locally. Record them (never an older release's):
//
//   npm run record-histories -- provision-local-calls.2027-04,provision-local-rolled-back.2027-04,held-then-retried.2027-04,stop-dev-services.2027-04
import type { Release } from './history-release-recordings';

const MARKER = 'EVENT_TYPE_MARKER_RECORDED';
const UPSERTED = 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES';

export const RELEASE_2027_04: Release = {
  name: '2027-04',
  recordedAgain: {
    // local attach, pooler and prod, each answering with its attempt.
    'provision-local-calls.2027-01': undefined,
    // the local attach fails (its failure names the step); the undo's local delete.
    'provision-local-rolled-back.2027-01': undefined,
    // held → running after the operator's retry; the pooler runs locally.
    'held-then-retried.2027-01': undefined,
    // the list runs locally (before the loop); the stops beside each other are activity tasks.
    'stop-dev-services.2027-02': undefined,
  },
  // The release gate's marker and the patches' (notifications, localCallAttempts), each with its
  // TemporalChangeVersion upsert.
  addedEvents: () => [MARKER, UPSERTED],
  newPaths: [],
};
