// The release gates (workflows/release-gate.ts, PATCHES.release2027_01, release2027_07 and
// release2027_09), checked on the replay gate's recordings: a run started on a gate's release
// records that gate and no patch it implies, so a provisioning run has 8 markers and 8
// TemporalChangeVersion upserts fewer on 2027-01 than on 2026-12, on 2027-07 one of each where
// 2027-04 had three, and on 2027-09 one local-activity marker fewer than on 2027-07.
import { readdirSync, readFileSync } from 'node:fs';
import { PATCHES, type PatchId } from '../../contract/patches';
import { impliedByGate, RELEASE_GATE } from '../../workflows/release-gate';
import { HISTORY_FIXTURES_DIR, historyFile } from '../helpers/history-recorder';

interface Payload {
  data?: string;
}
interface JsonEvent {
  eventType?: string;
  markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, { payloads?: Payload[] }> };
  upsertWorkflowSearchAttributesEventAttributes?: {
    searchAttributes?: { indexedFields?: Record<string, Payload> };
  };
}

const decode = (payload: Payload | undefined): unknown =>
  JSON.parse(Buffer.from(payload?.data ?? '', 'base64').toString('utf8'));

function events(name: string): JsonEvent[] {
  return (JSON.parse(readFileSync(historyFile(name), 'utf8')) as { events: JsonEvent[] }).events;
}

/** The patch ids of a history's `core_patch` markers. */
function patchMarkers(history: JsonEvent[]): string[] {
  return history
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
    .map(
      (e) =>
        (decode(e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]) as { id: string })
          .id,
    );
}

/** The TemporalChangeVersion values upserted (core adds one per patch taken). */
function changeVersionUpserts(history: JsonEvent[]): unknown[] {
  return history.flatMap((e) => {
    const field =
      e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion;
    return field ? [decode(field)] : [];
  });
}

const GATED = readdirSync(HISTORY_FIXTURES_DIR)
  .filter((file) => file.endsWith('.2027-01.history.json'))
  .map((file) => file.replace(/\.history\.json$/, ''));

test('each gate implies every patch listed before it, not itself nor the ones after it', () => {
  const ids: string[] = Object.values(PATCHES);
  for (const gate of [PATCHES.release2027_01, PATCHES.release2027_07, PATCHES.release2027_09]) {
    const at = ids.indexOf(gate);
    expect(at).toBeGreaterThan(0);
    for (const id of ids.slice(0, at)) expect(impliedByGate(id as PatchId, gate)).toBe(true);
    for (const id of ids.slice(at)) expect(impliedByGate(id as PatchId, gate)).toBe(false);
  }
  // Patches of the releases between the gates, asked for one by one by runs behind the first.
  expect(ids.slice(ids.indexOf(PATCHES.release2027_01) + 1, ids.indexOf(PATCHES.release2027_07))).toEqual([
    PATCHES.concurrentCallsAsTasks,
    PATCHES.notifications,
    PATCHES.localCallAttempts,
    PATCHES.runAdmission,
    PATCHES.siblingCancelSettles,
  ]);
  expect(ids.slice(ids.indexOf(PATCHES.release2027_07) + 1, ids.indexOf(PATCHES.release2027_09))).toEqual([
    PATCHES.admissionPlansNotifications,
  ]);
  expect(RELEASE_GATE).toBe(PATCHES.release2027_09);
  // Patches added since the newest gate, asked for one by one until the next gate implies them.
  expect(ids.slice(ids.indexOf(RELEASE_GATE) + 1)).toEqual([
    PATCHES.driftAutoRepair,
    PATCHES.locksStartHeld,
    PATCHES.holdActionsJudged,
    PATCHES.resetAsksAgain,
  ]);
});

test('release 2027-01 has recordings of runbook runs, a batch and a service lock', () => {
  expect(GATED).toEqual(
    expect.arrayContaining([
      'provision-local-calls.2027-01',
      'every-kind.2027-01',
      'foreach-batch-child.2027-01',
      'service-lock.2027-01',
    ]),
  );
});

test.each(GATED)('%s records the gate once and no other patch', (name) => {
  const history = events(name);
  expect(patchMarkers(history)).toEqual([PATCHES.release2027_01]);
  expect(changeVersionUpserts(history)).toEqual([[PATCHES.release2027_01]]);
});

test('a provisioning run on 2027-01 has 16 events fewer than on 2026-12: 8 markers and 8 upserts', () => {
  const before = events('provision-local-calls.2026-12');
  const after = events('provision-local-calls.2027-01');
  expect(patchMarkers(before)).toHaveLength(9);
  expect(changeVersionUpserts(before)).toHaveLength(9);
  const count = (history: JsonEvent[], type: string) => history.filter((e) => e.eventType === type).length;
  expect(after.length).toBe(before.length - 16);
  for (const type of ['EVENT_TYPE_MARKER_RECORDED', 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'])
    expect(count(after, type)).toBe(count(before, type) - 8);
});

test.each(['stop-dev-services.2027-02', 'every-kind.2027-02'])(
  '%s (steps side by side, release 2027-02) records the gate and concurrentCallsAsTasks, asked once',
  (name) => {
    const history = events(name);
    expect(patchMarkers(history)).toEqual([PATCHES.release2027_01, PATCHES.concurrentCallsAsTasks]);
    expect(changeVersionUpserts(history)).toEqual([
      [PATCHES.release2027_01],
      [PATCHES.release2027_01, PATCHES.concurrentCallsAsTasks],
    ]);
  },
);

const recordedOn = (release: string) =>
  readdirSync(HISTORY_FIXTURES_DIR)
    .filter((file) => file.endsWith(`.${release}.history.json`))
    .map((file) => file.replace(/\.history\.json$/, ''));

test.each(recordedOn('2027-07'))('%s records the 2027-07 gate once and no patch it implies', (name) => {
  const history = events(name);
  expect(patchMarkers(history)).toEqual([PATCHES.release2027_07]);
  expect(changeVersionUpserts(history)).toEqual([[PATCHES.release2027_07]]);
});

test.each(recordedOn('2027-09'))('%s records the newest gate once and no patch it implies', (name) => {
  const history = events(name);
  expect(patchMarkers(history)).toEqual([RELEASE_GATE]);
  expect(changeVersionUpserts(history)).toEqual([[RELEASE_GATE]]);
});

test('a provisioning run on 2027-09 records one local-activity marker fewer than on 2027-07', () => {
  const localActivities = (history: JsonEvent[]) =>
    history.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
  const before = events('provision-local-calls.2027-07');
  const after = events('provision-local-calls.2027-09');
  // 2027-07: run.admit, notify.plan, then attach, pooler and prod; 2027-09: no notify.plan.
  expect(localActivities(before)).toBe(5);
  expect(localActivities(after)).toBe(4);
  expect(after.length).toBe(before.length - 1);
});

test('a provisioning run on 2027-07 records one patch where 2027-04 recorded three', () => {
  const before = events('provision-local-calls.2027-04');
  const after = events('provision-local-calls.2027-07');
  expect(patchMarkers(before)).toEqual([
    PATCHES.release2027_01,
    PATCHES.localCallAttempts,
    PATCHES.notifications,
  ]);
  expect(changeVersionUpserts(before)).toHaveLength(3);
  expect(patchMarkers(after)).toHaveLength(1);
  expect(changeVersionUpserts(after)).toHaveLength(1);
});
