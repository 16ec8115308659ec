// Release 2027-01's recordings for the replay gate (history-release-recordings.ts explains the
// scheme). The release gate (PATCHES.release2027_01, workflows/release-gate.ts): every workflow run
// — runbook runs, child runbooks, foreach batches, service locks — asks for the gate first and,
// started on this release, records it (one marker, one TemporalChangeVersion upsert) and none of
// the patches before it. So every path that asked for patches records differently; these are a
// representative set of them: local and activity calls, a rollback, cancels during a create and a
// wait, fail-fast parallel, every step kind with a child runbook, an inline and a batched foreach
// (and a batch), a fork after an approval with the service lock it queued on, a hold and retry.
// Record them (never an older release's):
//
//   npm run record-histories -- provision-local-calls.2027-01,…
import { lockWorkflowId } from '../../contract/lock-messages';
import type { Recording } from './history-recorder';
import type { Release } from './history-release-recordings';

const RELEASE = '2027-01';
const MARKER = 'EVENT_TYPE_MARKER_RECORDED';
const UPSERTED = 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES';
const COMPLETED = 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED';

const NEW_PATHS: Recording[] = [
  {
    name: `service-lock.${RELEASE}`,
    // The lock fork-local-calls.2027-01 queued on for its parent service, started on this release:
    // it records the gate, not lockWatchesHolder.
    covers: {
      activities: {},
      events: [
        MARKER,
        UPSERTED,
        'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED',
        'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
        COMPLETED,
      ],
    },
    run: async ({ stack, services }) =>
      stack.client.workflow.getHandle(
        lockWorkflowId(`service/${stack.projectId}/${services.get(`provision-local-calls.${RELEASE}`)}`),
      ),
  },
  {
    name: `foreach-batch-child.${RELEASE}`,
    // The last batch of foreach-batches.2027-01 (needs that recording): the gate, then its
    // iteration's lock, (local) stop, wait and release without a patch marker of their own.
    covers: {
      activities: { 'lock.request': 1, 'wait.until': 1 },
      events: [MARKER, UPSERTED, 'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED', COMPLETED],
    },
    run: async ({ stack }) =>
      stack.client.workflow.getHandle(`replay-foreach-batches.${RELEASE}/stop_each[100-100]`),
  },
];

export const RELEASE_2027_01: Release = {
  name: RELEASE,
  recordedAgain: {
    // local attach, pooler and prod; the create and waits as activities.
    'provision-local-calls.2026-12': undefined,
    // the local attach fails; the undo's local delete, then its wait.
    'provision-local-rolled-back.2026-12': undefined,
    // cancelled during a held create: it finishes, then its undo (undoableCallsFinish), a local
    // delete since 2026-12 (a marker, no activity).
    'provision-cancelled-in-create.2026-11': {
      activities: { 'service.create': 1 },
      events: ['EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED'],
    },
    // cancelled while a wait polls; the undo's delete runs locally.
    'provision-cancelled-in-wait.2026-12': {
      activities: { 'service.create': 1, 'wait.until': 2 },
      events: ['EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED'],
    },
    // the failing branch cancels its sibling's wait (parallelFailFast); the sibling's create is
    // undone by a local delete.
    'parallel-fail-fast.2026-11': {
      activities: { 'service.create': 1 },
      events: ['EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED'],
    },
    // after an approval; forks provision-local-calls.2027-01's service and locks its parent.
    'fork-local-calls.2026-12': undefined,
    // an inline foreach, its iterations' locks (foreachLocks); the list and the stops run locally.
    'stop-dev-services.2026-12': {
      activities: { 'lock.request': 2, 'wait.until': 2 },
      events: [COMPLETED],
    },
    // 101 services in two batch children (foreachBatches); the list runs locally.
    'foreach-batches.2026-12': {
      activities: {},
      events: ['EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED', COMPLETED],
    },
    // every step kind; the child runbook asks for the gate too; the get runs locally.
    'every-kind.2026-12': {
      activities: {},
      events: ['EVENT_TYPE_TIMER_FIRED', 'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED', COMPLETED],
    },
    // held → running after the operator's retry; the pooler runs locally.
    'held-then-retried.2026-12': {
      activities: { 'service.create': 1 },
      events: ['EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED', COMPLETED],
    },
  },
  // Every run of this release records the gate's marker and its TemporalChangeVersion upsert.
  addedEvents: () => [MARKER, UPSERTED],
  newPaths: NEW_PATHS,
};
