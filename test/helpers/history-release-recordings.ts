// Recordings made by a later release, for the replay gate. The first release's histories
// (history-recorder.ts) hold the branches runs took before any patch; once a release adds patches,
// its runs take the new branches, and the release after it must replay those too. So each release
// records again, under `<name>.<release>`, the recordings whose paths its patches changed, plus
// recordings of paths that only exist since it. Record them by name (never re-record an older
// release's histories):
//
//   TIDELINE_RECORD_HISTORIES=provision-succeeded.2026-11,… npx jest test/integration/replay-histories.test.ts
import path from 'node:path';
import type { Recording, RecordingContext } from './history-recorder';
import { progressQuery, retryUpdate } from '../../workflows/messages';
import { pollUntil, waitForStep } from './runbook-fixtures';

const KINDS_DIR = path.resolve(__dirname, '..', 'fixtures', 'kinds');
const HOLD_DIR = path.resolve(__dirname, '..', 'fixtures', 'hold');

/** Release 2026-11: step activity ids, calls that finish before a cancel, fail-fast parallel. */
const RELEASE = '2026-11';
/** The recordings made again, with what this release's history covers where it differs. */
const RECORDED_AGAIN: Record<string, Recording['covers'] | undefined> = {
  'provision-succeeded': undefined,
  'provision-rolled-back': undefined,
  // The create is no longer abandoned: it finishes, then its undo deletes what it made.
  'provision-cancelled-in-create': {
    activities: { 'service.create': 1, 'service.delete': 1 },
    events: ['EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED'],
  },
  'provision-cancelled-in-wait': undefined,
  'fork-and-promote-approved': undefined,
  'service-lock': undefined,
  'stop-dev-services': undefined,
  'every-kind': undefined,
};

/** Earlier recordings' service ids, as this release's copies of them see them. */
function releaseView(services: Map<string, string>): Map<string, string> {
  const view = new Map(services);
  for (const [name, id] of services)
    if (name.endsWith(`.${RELEASE}`)) view.set(name.slice(0, -RELEASE.length - 1), id);
  return view;
}

function recordedAgain(recording: Recording): Recording {
  const covers = RECORDED_AGAIN[recording.name] ?? recording.covers;
  const takesPatches = Object.keys(covers.activities).length > 0;
  return {
    name: `${recording.name}.${RELEASE}`,
    covers: {
      activities: covers.activities,
      // A run with activities takes (and records) at least the step-activity-ids patch.
      events: [...covers.events, ...(takesPatches ? ['EVENT_TYPE_MARKER_RECORDED'] : [])],
    },
    run: (context: RecordingContext) =>
      recording.run({ ...context, services: releaseView(context.services) }),
  };
}

const NEW_PATHS: Recording[] = [
  {
    name: `fork-cancelled-in-stop.${RELEASE}`,
    // A change without an undo (the parent's stop) is in flight when the run is cancelled: it
    // finishes its attempt (WAIT_CANCELLATION_COMPLETED), then the run compensates.
    covers: {
      activities: { 'service.stop': 1, 'service.start': 1 },
      events: ['EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED'],
    },
    run: async ({ stack, services }) => {
      stack.cloud.cloud.addFaults({ action: 'service.stop', kind: 'latency', ms: 3_000, times: 1 });
      const handle = await stack.start('fork-and-promote.yaml', {
        project_id: stack.projectId,
        service_id: releaseView(services).get('fork-and-promote-approved'),
      });
      await waitForStep(handle, 'parent_stop', 'running', 60_000);
      await handle.cancel();
      return handle;
    },
  },
  {
    name: `parallel-fail-fast.${RELEASE}`,
    // The failing branch cancels its sibling's long wait; the sibling's create is compensated.
    covers: {
      activities: { 'service.create': 1, 'service.delete': 1 },
      events: ['EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED'],
    },
    run: ({ stack }) =>
      stack.start(path.join(KINDS_DIR, 'parallel-fail-fast.yaml'), {
        project_id: stack.projectId,
        name: 'fail-fast',
      }),
  },
  {
    name: `held-then-retried.${RELEASE}`,
    // onFailure: hold (issue 14): the pooler fails (5xx, one attempt) and holds the run; the fault
    // is removed and an operator's retry update runs the pooler again; the run completes.
    covers: {
      activities: { 'service.create': 1, 'service.enablePooler': 2 },
      events: ['EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
    },
    run: async ({ stack }) => {
      stack.cloud.cloud.addFaults({
        action: 'service.enablePooler',
        kind: 'error',
        status: 503,
      });
      const handle = await stack.start(path.join(HOLD_DIR, 'provision-hold.yaml'), {
        project_id: stack.projectId,
        name: 'held-retried',
      });
      await pollUntil(
        'the run to hold',
        () => handle.query(progressQuery),
        (p) => p.status === 'held',
        60_000,
      );
      stack.cloud.cloud.clearFaults();
      await handle.executeUpdate(retryUpdate, {
        args: [{ step: 'pooler', by: 'recorder', reason: 'fault removed' }],
      });
      return handle;
    },
  },
];

export function releaseRecordings(firstRelease: readonly Recording[]): Recording[] {
  const again = firstRelease.filter((r) => r.name in RECORDED_AGAIN).map(recordedAgain);
  return [...again, ...NEW_PATHS];
}
