// Recordings made by later releases, for the replay gate. The first release's histories
// (history-recorder.ts) hold the branches runs took before any patch; once a release adds patches,
// its runs take the new branches, and the releases after it must replay those too. So each release
// records again, under `<name>.<release>`, the recordings whose paths its patches changed, plus
// recordings of paths that only exist since it. Each release is one `Release` below (2026-11 in
// this file, later ones in their own `history-release-<release>.ts`; 2027-01 adds the release
// gate, workflows/release-gate.ts). Record them by name (never
// re-record an older release's histories):
//
//   npm run record-histories -- provision-succeeded.2026-12,…
import path from 'node:path';
import type { Recording, RecordingContext } from './history-recorder';
import { progressQuery, retryUpdate } from '../../contract/run-messages';
import { RELEASE_2026_12 } from './history-release-2026-12';
import { RELEASE_2027_01 } from './history-release-2027-01';
import { RELEASE_2027_02 } from './history-release-2027-02';
import { RELEASE_2027_04 } from './history-release-2027-04';
import { RELEASE_2027_06 } from './history-release-2027-06';
import { RELEASE_2027_07 } from './history-release-2027-07';
import { RELEASE_2027_09 } from './history-release-2027-09';
import { RELEASE_2027_11 } from './history-release-2027-11';
import { pollUntil, waitForStep } from './runbook-fixtures';

export interface Release {
  /** `YYYY-MM`: the suffix of its recordings' names. */
  name: string;
  /**
   * Earlier recordings (first release's, or an earlier release's by full name) made again on this
   * release, with what the history covers where it differs from the original (undefined: the same).
   */
  recordedAgain: Record<string, Recording['covers'] | undefined>;
  /** Events a history recorded again on this release holds besides (e.g. its patch's marker). */
  addedEvents(covers: Recording['covers']): string[];
  /** Recordings of paths that only exist since this release (named `<path>.<release>`). */
  newPaths: Recording[];
}

/** An earlier recording's name without its release suffix. */
function baseName(name: string): string {
  return name.replace(/\.\d{4}-\d{2}$/, '');
}

/**
 * Earlier recordings' service ids, as this release's copies of them see them: `<name>.<release>`'s
 * id also under `<name>` and under `<name>.<earlier release>` (a copy of a later release's
 * recording asks for its own release's names).
 */
export function releaseView(release: string, services: Map<string, string>): Map<string, string> {
  const view = new Map(services);
  for (const [name, id] of services) {
    if (!name.endsWith(`.${release}`)) continue;
    const base = name.slice(0, -release.length - 1);
    view.set(base, id);
    for (const earlier of RELEASES) if (earlier.name < release) view.set(`${base}.${earlier.name}`, id);
  }
  return view;
}

function recordedAgain(release: Release, recording: Recording): Recording {
  const covers = release.recordedAgain[recording.name] ?? recording.covers;
  return {
    name: `${baseName(recording.name)}.${release.name}`,
    covers: { activities: covers.activities, events: [...covers.events, ...release.addedEvents(covers)] },
    run: (context: RecordingContext) =>
      recording.run({ ...context, services: releaseView(release.name, context.services) }),
  };
}

const KINDS_DIR = path.resolve(__dirname, '..', 'fixtures', 'kinds');
const HOLD_DIR = path.resolve(__dirname, '..', 'fixtures', 'hold');

/** Release 2026-11: step activity ids, calls that finish before a cancel, fail-fast parallel. */
const RELEASE = '2026-11';
/** The recordings made again, with what this release's history covers where it differs. */
const RECORDED_AGAIN_2026_11: Record<string, Recording['covers'] | undefined> = {
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

const NEW_PATHS_2026_11: Recording[] = [
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
        service_id: releaseView(RELEASE, services).get('fork-and-promote-approved'),
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
    // onFailure: hold: the pooler fails (5xx, one attempt) and holds the run; the fault
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

const RELEASE_2026_11: Release = {
  name: RELEASE,
  recordedAgain: RECORDED_AGAIN_2026_11,
  // A run with activities takes (and records) at least the step-activity-ids patch.
  addedEvents: (covers) => (Object.keys(covers.activities).length > 0 ? ['EVENT_TYPE_MARKER_RECORDED'] : []),
  newPaths: NEW_PATHS_2026_11,
};

/** Every later release, oldest first. */
export const RELEASES: readonly Release[] = [
  RELEASE_2026_11,
  RELEASE_2026_12,
  RELEASE_2027_01,
  RELEASE_2027_02,
  RELEASE_2027_04,
  RELEASE_2027_06,
  RELEASE_2027_07,
  RELEASE_2027_09,
  RELEASE_2027_11,
];

/** The recordings of every later release, in order (later ones may use what earlier ones made). */
export function releaseRecordings(firstRelease: readonly Recording[]): Recording[] {
  const all = [...firstRelease];
  for (const release of RELEASES) {
    const unknown = Object.keys(release.recordedAgain).filter((name) => !all.some((r) => r.name === name));
    if (unknown.length > 0)
      throw new Error(`release ${release.name} records again unknown ${unknown.join(', ')}`);
    const again = all.filter((r) => r.name in release.recordedAgain).map((r) => recordedAgain(release, r));
    all.push(...again, ...release.newPaths);
  }
  return all.slice(firstRelease.length);
}
