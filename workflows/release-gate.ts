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

/** The release gates, oldest first. */
const GATES = [PATCHES.release2027_01, PATCHES.release2027_07, PATCHES.release2027_09] as const;
type GateId = (typeof GATES)[number];

/** The newest release gate: the one a run started on this release records. */
export const RELEASE_GATE: GateId = PATCHES.release2027_09;

/** A patch asked for with `hasPatch` (any but a gate). */
export type GatedPatchId = Exclude<PatchId, GateId>;

/** What each gate implies: the patches listed before it in PATCHES (later ones are asked for). */
const IMPLIED: ReadonlyMap<GateId, ReadonlySet<PatchId>> = (() => {
  const ids: PatchId[] = Object.values(PATCHES);
  return new Map(GATES.map((id) => [id, new Set(ids.slice(0, ids.indexOf(id)))]));
})();

/** Undefined until `startRelease()` ran in this run; null when no gate holds for it. */
let gate: GateId | null | undefined;

/**
 * Asks for the release gates, once, at the start of the run, the newest first. A run started on
 * this release records the newest (one marker and one TemporalChangeVersion upsert) and asks for
 * no other patch the gate implies; a run started on an earlier release replays without it and
 * finds the gate of its own release, if any, and asks for each later patch as it did.
 */
export function startRelease(): void {
  gate = null;
  for (const id of [...GATES].reverse()) {
    if (patched(id)) {
      gate = id;
      return;
    }
  }
}

/** The gate that holds for this run (null: none, a run started before the first gate). */
function gateOfRun(): GateId | null {
  if (gate === undefined)
    throw new IllegalStateError('startRelease() must be called before asking for patches');
  return gate;
}

/**
 * `patched(id)`, except that a run behind a gate has every patch the gate implies without asking
 * (nothing recorded); a patch listed after its gate is asked for as usual.
 */
export function hasPatch(id: GatedPatchId): boolean {
  const held = gateOfRun();
  return (held !== null && impliedByGate(id, held)) || patched(id);
}

/** Whether gate `by` (default: the newest) implies patch `id` (it is listed before the gate). */
export function impliedByGate(id: PatchId, by: GateId = RELEASE_GATE): boolean {
  return IMPLIED.get(by)?.has(id) === true;
}
