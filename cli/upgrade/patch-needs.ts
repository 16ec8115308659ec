// Which old branches an open run may still take, from the patch ids it recorded (its
// TemporalChangeVersion search attribute, or the patch markers in its history) and the list in
// contract/patches.ts. `patched(id)` answers "yes" on replay only where the history holds the
// id's marker, and a run that reaches a patch live on a release that has it records it. So a run
// may take the old branch of every patch it did not record, except the ones a release gate it
// recorded implies (those listed before that gate): a run started on or after a gate's release
// records the gate and takes every earlier patch's new branch without asking. A patch can be
// retired once no open run may take its old branch.
//
// This is conservative: a run that never asks for a patch (say, one asked only by runs that have
// steps side by side) looks the same as one that passed it on a release without it, and is
// counted as possibly needing it — until the next gate, which implies it for the runs started
// after it.
import { PATCHES, type PatchId } from '../../contract/patches';
import { asksForNoPatch } from '../../contract/workflow-types';

/** A release gate's id: `tideline-YYYY-MM-release` (workflows/release-gate.ts). */
const GATE_ID = /^tideline-(\d{4}-\d{2})-release$/;
/** Every patch id starts with the release that added it. */
const PATCH_RELEASE = /^tideline-(\d{4}-\d{2})-/;

export interface PatchInfo {
  id: PatchId;
  /** The release that added it (YYYY-MM). */
  release: string;
  /** Whether it is a release gate. */
  gate: boolean;
}

/** Every patch of contract/patches.ts, in their order (the order gates imply them by). */
export function knownPatches(ids: readonly string[] = Object.values(PATCHES)): PatchInfo[] {
  return ids.map((id) => ({
    id: id as PatchId,
    release: PATCH_RELEASE.exec(id)?.[1] ?? 'unknown',
    gate: GATE_ID.test(id),
  }));
}

export interface RunPatchNeeds {
  /** The release the run started on, as far as its markers tell: `2027-01 or later`, `before 2027-01`. */
  startedOn: string;
  /** The newest gate it recorded, if any. */
  gate: string | null;
  /** Patches whose old branch it may still take, in the order of contract/patches.ts. */
  needs: PatchId[];
  /** Recorded ids this tree does not know (a newer release's, or retired ones). */
  unknown: string[];
}

/** What a run that recorded `recorded` may still need, given the known patches. */
export function patchNeeds(
  recorded: readonly string[],
  patches: readonly PatchInfo[] = knownPatches(),
): RunPatchNeeds {
  const taken = new Set(recorded);
  const gateIndex = patches.reduce(
    (newest, patch, index) => (patch.gate && taken.has(patch.id) ? index : newest),
    -1,
  );
  const gate = patches[gateIndex];
  const firstGate = patches.find((patch) => patch.gate);
  const startedOn =
    gate !== undefined
      ? `${gate.release} or later`
      : firstGate !== undefined
        ? `before ${firstGate.release}`
        : 'unknown';
  const needs = patches
    .filter((patch, index) => !patch.gate && !taken.has(patch.id) && index > gateIndex)
    .map((patch) => patch.id);
  const known = new Set<string>(patches.map((patch) => patch.id));
  return { startedOn, gate: gate?.id ?? null, needs, unknown: recorded.filter((id) => !known.has(id)) };
}

/** What an open run of `workflowType` may need: nothing for a type that asks for no patch. */
export function runPatchNeeds(
  workflowType: string,
  recorded: readonly string[],
  patches: readonly PatchInfo[] = knownPatches(),
): RunPatchNeeds {
  const byMarkers = patchNeeds(recorded, patches);
  if (!asksForNoPatch(workflowType)) return byMarkers;
  return { ...byMarkers, startedOn: 'any release (its type asks for no patch)', gate: null, needs: [] };
}
