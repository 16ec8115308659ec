// The interpreter's upgrade policy, in code. A run may outlive the release that started it (an
// approval can wait for days), and Temporal replays its history on whatever worker is deployed
// next. So every change to workflow code that alters the commands a run emits — which activities,
// timers, child workflows, signals, search-attribute upserts or markers, their order, or an
// activity's id — is guarded by `patched(<id>)` with an id from this list:
//
//   if (patched(PATCHES.someChange)) { …new behaviour… } else { …old behaviour… }
//
// A run that reached that point on an older release replays the old branch; a run that gets there
// on this release takes (and records) the new one. The replay gate (test/integration/
// replay-histories.test.ts) replays recorded histories of every step kind, made by older releases,
// against the code in the tree; it fails when a change was left unguarded.
//
// Retiring a patch (README, "Upgrading tideline"): once no run started before the release that
// added it can still be open, replace `patched` by `deprecatePatch` for one release, then delete
// the old branch and the id. Never reuse an id.
export const PATCHES = {} as const;

export type PatchId = (typeof PATCHES)[keyof typeof PATCHES];
