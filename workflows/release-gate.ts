// Which patches a run takes, behind the release gate (contract/patches.ts). Every workflow
// function that asks for patches calls `startRelease()` first — before any other patch and any
// command — and then asks `hasPatch(id)` instead of `patched(id)`.
//
// The answer is per run: this module's `let` is module-level state, and the SDK loads the workflow
// modules once per workflow run (also in its reusable V8 context, which routes the module cache
// per run), so each run has its own. This module must therefore never be listed in the worker's
// shared preload modules (worker/workflow-source.ts).
//
// Why the answer is kept instead of asking `patched(gate)` again: a run started before the gate
// replays its first workflow task without the gate's marker, so `patched` says no there; asked
// again once the run executes live, it would say yes and record the gate in the middle of a run
// that took the old patches one by one.
import { IllegalStateError, patched } from '@temporalio/workflow';
import { PATCHES, type PatchId } from '../contract/patches';

/** The newest release gate. */
export const RELEASE_GATE = PATCHES.release2027_01;

/** A patch asked for with `hasPatch` (any but the gate itself). */
export type GatedPatchId = Exclude<PatchId, typeof RELEASE_GATE>;

/** The patches the gate implies: those listed before it in PATCHES (later ones are asked for). */
const IMPLIED: ReadonlySet<PatchId> = (() => {
  const ids: PatchId[] = Object.values(PATCHES);
  return new Set(ids.slice(0, ids.indexOf(RELEASE_GATE)));
})();

/** Undefined until `startRelease()` ran in this run. */
let gate: boolean | undefined;

/**
 * Asks for the release gate, once, at the start of the run. A run started on this release records
 * it (one marker and one TemporalChangeVersion upsert) and asks for no other patch; a run started
 * earlier replays without it and asks for each patch as it did.
 */
export function startRelease(): void {
  gate = patched(RELEASE_GATE);
}

/** Whether this run was started on the gate's release or later (every gated patch holds). */
function releaseGateHolds(): boolean {
  if (gate === undefined)
    throw new IllegalStateError('startRelease() must be called before asking for patches');
  return gate;
}

/**
 * `patched(id)`, except that a run behind the gate has every patch the gate implies without asking
 * (nothing recorded); a patch listed after the gate is asked for as usual.
 */
export function hasPatch(id: GatedPatchId): boolean {
  return (releaseGateHolds() && impliedByGate(id)) || patched(id);
}

/** Whether the gate implies patch `id` (it is listed before the gate). */
export function impliedByGate(id: PatchId): boolean {
  return IMPLIED.has(id);
}
