// Each recorded history carries exactly the patch markers of the release it is named after
// (`<name>.<release>`; a name without a release is the first release's, 2026-11 at the latest):
// only ids listed in contract/patches.ts, none of a later release, and from a release gate on the
// newest gate of that release plus only patches listed after it (the gate implies the others, so a
// run started on that release never records them), and every patch a top-level run always asks for
// from its release on (until a gate implies it). A history recorded with other code than its release's, or a raw patched()
// id, fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PATCHES } from '../../contract/patches';
import { asksForNoPatch } from '../../contract/workflow-types';
import { HISTORY_FIXTURES_DIR, HISTORY_SUFFIX, historyFiles } from '../helpers/history-manifest';

const FIRST_RELEASE = '2026-11';
const ALL_IDS: readonly string[] = Object.values(PATCHES);

/** The release in a patch id (`tideline-YYYY-MM-…`). */
function releaseOf(id: string): string {
  const match = /^tideline-(\d{4}-\d{2})-/.exec(id);
  if (match === null) throw new Error(`patch id ${id} names no release`);
  return match[1]!;
}

const isGate = (id: string) => id.endsWith('-release');

/** Patches asked at the start of every run without a parent (contract/patches.ts says which). */
const ASKED_BY_EVERY_TOP_LEVEL_RUN: readonly string[] = [
  PATCHES.notifications,
  PATCHES.admissionPlansNotifications,
];

interface HistoryEvent {
  workflowExecutionStartedEventAttributes?: {
    parentWorkflowExecution?: unknown;
    workflowType?: { name?: string };
  };
  markerRecordedEventAttributes?: {
    markerName?: string;
    details?: Record<string, { payloads?: Array<{ data?: string }> }>;
  };
}

/** Whether a history is of a run without a parent (not a foreach batch or a child runbook). */
function isTopLevel(file: string): boolean {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { events?: HistoryEvent[] };
  return json.events?.[0]?.workflowExecutionStartedEventAttributes?.parentWorkflowExecution == null;
}

/** Whether a history is of a workflow type that asks for no patch: it must record none. */
function isPatchFree(file: string): boolean {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { events?: HistoryEvent[] };
  const type = json.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  return type !== undefined && asksForNoPatch(type);
}

/** The patch ids a history's `core_patch` markers record, each once, in order. */
function patchIds(file: string): string[] {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { events?: HistoryEvent[] };
  const ids: string[] = [];
  for (const event of json.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') continue;
    const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
    if (data === undefined) throw new Error(`${path.basename(file)}: a patch marker without its data`);
    const id = (JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id: string }).id;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** What is wrong with the patch ids of a history of `release` (empty: nothing). */
function patchProblems(release: string, ids: readonly string[], topLevel = false): string[] {
  const problems: string[] = [];
  const gates = ALL_IDS.filter((id) => isGate(id) && releaseOf(id) <= release);
  const gate = gates[gates.length - 1];
  const impliedByGate = (id: string) => gate !== undefined && ALL_IDS.indexOf(id) < ALL_IDS.indexOf(gate);
  if (topLevel)
    for (const id of ASKED_BY_EVERY_TOP_LEVEL_RUN)
      if (releaseOf(id) <= release && !impliedByGate(id) && !ids.includes(id))
        problems.push(`no marker of ${id}, which every top-level run of ${release} asks for`);
  for (const id of ids) {
    if (!ALL_IDS.includes(id)) problems.push(`${id} is not in contract/patches.ts`);
    else if (releaseOf(id) > release) problems.push(`${id} is of a later release`);
  }
  if (gate === undefined) {
    for (const id of ids) if (isGate(id)) problems.push(`${id}: a release gate before any gate existed`);
    return problems;
  }
  if (!ids.includes(gate)) problems.push(`no marker of the release gate ${gate}`);
  const afterGate = ALL_IDS.slice(ALL_IDS.indexOf(gate) + 1);
  for (const id of ids) {
    if (id !== gate && ALL_IDS.includes(id) && !afterGate.includes(id))
      problems.push(`${id} is implied by the gate ${gate} and must not be recorded`);
  }
  return problems;
}

test('every recorded history carries exactly its release’s patch markers', () => {
  const problems = historyFiles().flatMap((file) => {
    const name = file.slice(0, -HISTORY_SUFFIX.length);
    const release = /\.(\d{4}-\d{2})$/.exec(name)?.[1] ?? FIRST_RELEASE;
    const full = path.join(HISTORY_FIXTURES_DIR, file);
    if (isPatchFree(full)) {
      const ids = patchIds(full);
      return ids.length === 0
        ? []
        : [`${file}: a lock type that asks for no patch recorded ${ids.join(', ')}`];
    }
    return patchProblems(release, patchIds(full), isTopLevel(full)).map((problem) => `${file}: ${problem}`);
  });
  expect(problems).toEqual([]);
});

test('the check refuses unknown, later, implied and missing-gate markers', () => {
  const gate = PATCHES.release2027_01;
  expect(patchProblems('2026-12', ['tideline-2026-12-made-up'])).toEqual([
    'tideline-2026-12-made-up is not in contract/patches.ts',
  ]);
  expect(patchProblems('2026-11', [PATCHES.runVisibility])).toEqual([
    `${PATCHES.runVisibility} is of a later release`,
  ]);
  expect(patchProblems('2027-01', [gate, PATCHES.localCalls])).toEqual([
    `${PATCHES.localCalls} is implied by the gate ${gate} and must not be recorded`,
  ]);
  expect(patchProblems('2027-02', [PATCHES.concurrentCallsAsTasks])).toEqual([
    `no marker of the release gate ${gate}`,
  ]);
  expect(patchProblems('2027-02', [gate, PATCHES.concurrentCallsAsTasks])).toEqual([]);
  expect(patchProblems('2027-04', [gate, PATCHES.localCallAttempts], true)).toEqual([
    `no marker of ${PATCHES.notifications}, which every top-level run of 2027-04 asks for`,
  ]);
  expect(patchProblems('2027-04', [gate, PATCHES.localCallAttempts], false)).toEqual([]);
  expect(patchProblems('2027-02', [gate], true)).toEqual([]);
  // From 2027-09 on, a top-level run records the newest gate alone: it implies the patches every
  // top-level run asks for.
  expect(patchProblems('2027-09', [PATCHES.release2027_09], true)).toEqual([]);
  expect(patchProblems('2027-09', [PATCHES.release2027_07], true)).toEqual([
    `no marker of the release gate ${PATCHES.release2027_09}`,
    `${PATCHES.release2027_07} is implied by the gate ${PATCHES.release2027_09} and must not be recorded`,
  ]);
});
