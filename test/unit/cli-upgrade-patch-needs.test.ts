// Which old branches an open run may still take, from the patch ids it recorded
// (cli/upgrade/patch-needs.ts): a recorded gate implies every patch listed before it, a patch the
// run recorded needs no old branch, everything else may.
import { knownPatches, patchNeeds, runPatchNeeds } from '../../cli/upgrade/patch-needs';
import {
  HELD_LOCK_WORKFLOW_TYPE,
  LOCK_WORKFLOW_TYPE,
  RUNBOOK_WORKFLOW_TYPE,
  WATCHING_LOCK_WORKFLOW_TYPE,
} from '../../contract/workflow-types';
import { PATCHES } from '../../contract/patches';

const BEFORE_GATE = Object.values(PATCHES).slice(0, Object.values(PATCHES).indexOf(PATCHES.release2027_01));

test('every patch id names its release, and the gate is known as one', () => {
  const patches = knownPatches();
  expect(patches.filter((p) => p.gate).map((p) => p.id)).toEqual([
    PATCHES.release2027_01,
    PATCHES.release2027_07,
    PATCHES.release2027_09,
  ]);
  expect(patches.every((p) => /^\d{4}-\d{2}$/.test(p.release))).toBe(true);
});

test('a run started on the gate release or later needs only the patches after the gate it did not record', () => {
  expect(patchNeeds([PATCHES.release2027_01])).toEqual({
    startedOn: '2027-01 or later',
    gate: PATCHES.release2027_01,
    needs: [
      PATCHES.concurrentCallsAsTasks,
      PATCHES.notifications,
      PATCHES.localCallAttempts,
      PATCHES.runAdmission,
      PATCHES.siblingCancelSettles,
      PATCHES.admissionPlansNotifications,
      PATCHES.driftAutoRepair,
      PATCHES.locksStartHeld,
      PATCHES.holdActionsJudged,
      PATCHES.resetAsksAgain,
    ],
    unknown: [],
  });
  expect(
    patchNeeds([
      PATCHES.release2027_01,
      PATCHES.concurrentCallsAsTasks,
      PATCHES.notifications,
      PATCHES.localCallAttempts,
      PATCHES.runAdmission,
      PATCHES.siblingCancelSettles,
      PATCHES.admissionPlansNotifications,
      PATCHES.driftAutoRepair,
      PATCHES.locksStartHeld,
      PATCHES.holdActionsJudged,
      PATCHES.resetAsksAgain,
    ]).needs,
  ).toEqual([]);
});

test('a run started on the 2027-07 gate needs only the patches listed after it', () => {
  expect(patchNeeds([PATCHES.release2027_07])).toEqual({
    startedOn: '2027-07 or later',
    gate: PATCHES.release2027_07,
    needs: [
      PATCHES.admissionPlansNotifications,
      PATCHES.driftAutoRepair,
      PATCHES.locksStartHeld,
      PATCHES.holdActionsJudged,
      PATCHES.resetAsksAgain,
    ],
    unknown: [],
  });
});

test('a run started on the newest gate release needs only the patches listed after it', () => {
  expect(patchNeeds([PATCHES.release2027_09])).toEqual({
    startedOn: '2027-09 or later',
    gate: PATCHES.release2027_09,
    needs: [
      PATCHES.driftAutoRepair,
      PATCHES.locksStartHeld,
      PATCHES.holdActionsJudged,
      PATCHES.resetAsksAgain,
    ],
    unknown: [],
  });
  expect(
    patchNeeds([
      PATCHES.release2027_09,
      PATCHES.driftAutoRepair,
      PATCHES.locksStartHeld,
      PATCHES.holdActionsJudged,
      PATCHES.resetAsksAgain,
    ]).needs,
  ).toEqual([]);
});

test('a run started before the gate may need every patch it did not record', () => {
  const recorded: string[] = [PATCHES.undoableCallsFinish, PATCHES.stepActivityIds];
  const result = patchNeeds(recorded);
  expect(result.startedOn).toBe('before 2027-01');
  expect(result.gate).toBeNull();
  expect(result.needs).toEqual(
    [
      ...BEFORE_GATE,
      PATCHES.concurrentCallsAsTasks,
      PATCHES.notifications,
      PATCHES.localCallAttempts,
      PATCHES.runAdmission,
      PATCHES.siblingCancelSettles,
      PATCHES.admissionPlansNotifications,
      PATCHES.driftAutoRepair,
      PATCHES.locksStartHeld,
      PATCHES.holdActionsJudged,
      PATCHES.resetAsksAgain,
    ].filter((id) => !recorded.includes(id)),
  );
  expect(patchNeeds([]).needs).toHaveLength(BEFORE_GATE.length + 10);
});

test('the newest recorded gate counts, and ids this tree does not know are reported', () => {
  const ids = [
    'tideline-2026-11-a',
    'tideline-2027-01-release',
    'tideline-2027-02-b',
    'tideline-2027-03-release',
    'tideline-2027-03-c',
  ];
  const patches = knownPatches(ids);
  expect(
    patchNeeds(['tideline-2027-01-release', 'tideline-2027-03-release', 'tideline-2099-01-x'], patches),
  ).toEqual({
    startedOn: '2027-03 or later',
    gate: 'tideline-2027-03-release',
    needs: ['tideline-2027-03-c'],
    unknown: ['tideline-2099-01-x'],
  });
  expect(patchNeeds(['tideline-2027-01-release'], patches).needs).toEqual([
    'tideline-2027-02-b',
    'tideline-2027-03-c',
  ]);
});

test('a service lock of a type that asks for no patch needs none; other types as their markers say', () => {
  for (const type of [LOCK_WORKFLOW_TYPE, HELD_LOCK_WORKFLOW_TYPE]) {
    expect(runPatchNeeds(type, [])).toEqual({
      startedOn: 'any release (its type asks for no patch)',
      gate: null,
      needs: [],
      unknown: [],
    });
  }
  expect(runPatchNeeds(HELD_LOCK_WORKFLOW_TYPE, ['tideline-2099-01-x']).unknown).toEqual([
    'tideline-2099-01-x',
  ]);
  // The lock as earlier releases started it asks for the gate and lockWatchesHolder.
  expect(runPatchNeeds(WATCHING_LOCK_WORKFLOW_TYPE, [])).toEqual(patchNeeds([]));
  expect(runPatchNeeds(RUNBOOK_WORKFLOW_TYPE, [PATCHES.release2027_09])).toEqual(
    patchNeeds([PATCHES.release2027_09]),
  );
});
