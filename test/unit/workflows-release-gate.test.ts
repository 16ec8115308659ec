// The release gate (workflows/release-gate.ts, PATCHES.release2027_01), checked on the replay
// gate's recordings: a run started on release 2027-01 records the gate and no other patch, so a
// provisioning run has 8 markers and 8 TemporalChangeVersion upserts fewer than on 2026-12.
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

test('the gate implies every patch listed before it, not itself nor the ones after it', () => {
  const ids: string[] = Object.values(PATCHES);
  const at = ids.indexOf(RELEASE_GATE);
  expect(at).toBeGreaterThan(0);
  for (const id of ids.slice(0, at)) expect(impliedByGate(id as PatchId)).toBe(true);
  for (const id of ids.slice(at)) expect(impliedByGate(id as PatchId)).toBe(false);
  // Patches of the next release, asked for one by one until its gate comes.
  expect(ids.slice(at + 1)).toEqual([
    PATCHES.concurrentCallsAsTasks,
    PATCHES.notifications,
    PATCHES.localCallAttempts,
    PATCHES.runAdmission,
    PATCHES.siblingCancelSettles,
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
  expect(patchMarkers(history)).toEqual([RELEASE_GATE]);
  expect(changeVersionUpserts(history)).toEqual([[RELEASE_GATE]]);
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
    expect(patchMarkers(history)).toEqual([RELEASE_GATE, PATCHES.concurrentCallsAsTasks]);
    expect(changeVersionUpserts(history)).toEqual([
      [RELEASE_GATE],
      [RELEASE_GATE, PATCHES.concurrentCallsAsTasks],
    ]);
  },
);
