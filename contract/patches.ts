// The interpreter's upgrade policy, in code. A run may outlive the release that started it (an
// approval can wait for days), and Temporal replays its history on whatever worker is deployed
// next. So every change to workflow code that alters the commands a run emits — which activities,
// timers, child workflows, signals, search-attribute upserts or markers, their order, or an
// activity's id — is guarded by a patch with an id from this list, asked for with `hasPatch`
// (`patched`, behind the release gate below):
//
//   if (hasPatch(PATCHES.someChange)) { …new behaviour… } else { …old behaviour… }
//
// A run that reached that point on an older release replays the old branch; a run that gets there
// on this release takes (and records) the new one. The replay gate (test/integration/
// workflows-replay-histories.test.ts) replays recorded histories of every step kind, made by older releases,
// against the code in the tree; it fails when a change was left unguarded.
//
// Release gates. Each `patched(id)` a new run takes costs it two history events (a `core_patch`
// marker and an upsert of TemporalChangeVersion, which Temporal core adds itself and the server
// also writes to its visibility store). So a release's changes are patched individually, and the
// next release adds a gate that implies them for runs started on it: the gate's id is listed after
// them and means "this run was started on that release or later: every patch listed before the
// gate holds, and none of them is asked for (so none is recorded)". Code asks
// `hasPatch(PATCHES.x)` (workflows/release-gate.ts), never `patched`: each workflow function calls
// `startRelease()` first, which asks for the gate once, before any other patch or command. A run
// started before the gate replays its first workflow task without the gate's marker, so the gate
// does not hold for it, and it asks for each patch exactly as before; a new run records the gate
// once and nothing else. Patches added after the newest gate are listed after it and asked for
// individually (`hasPatch` implies only the ids listed before the gate); the release after them
// adds the next gate after them, and `startRelease` then asks the newer gate first and the older
// one only when the newer does not hold.
//
// Retiring a patch (docs/upgrading.md): once no run started before the release that
// added it can still be open, replace `patched` by `deprecatePatch` for one release, then delete
// the old branch and the id. Never reuse an id.
export const PATCHES = {
  /**
   * 2026-11: a call that has a `compensate` runs to its end even when the run is cancelled
   * meanwhile, its undo is registered, and only then the cancellation takes effect (before: the
   * run stopped waiting and the created resource was left behind).
   */
  undoableCallsFinish: 'tideline-2026-11-undoable-calls-finish',
  /** 2026-11: the first failing `parallel` branch cancels its siblings (before: waited for all). */
  parallelFailFast: 'tideline-2026-11-parallel-fail-fast',
  /**
   * 2026-11: activities carry their step key as activity id and the step's name as summary;
   * child runbooks carry the step's name as their static summary.
   */
  stepActivityIds: 'tideline-2026-11-step-activity-ids',
  /**
   * 2026-11: a run whose cancellation was requested ends cancelled even when a step failed on the
   * way, and releases its locks on success without being interrupted by a late cancellation.
   */
  cancellationKept: 'tideline-2026-11-cancellation-kept',
  /**
   * 2026-11: a changing call (no undo) in flight when the run is cancelled finishes its attempt
   * before compensation starts (activity cancellation type WAIT_CANCELLATION_COMPLETED; before:
   * TRY_CANCEL, so a stop could land after the compensation had restarted the service).
   */
  changesSettleBeforeCancel: 'tideline-2026-11-changes-settle-before-cancel',
  /**
   * 2026-11: a lock workflow watches its holder with an activity (`lock.watchHolder`, a look every
   * 2 s, one activity per 30 min window) instead of pinging it every 5 minutes, so a terminated
   * holder's lock passes on within seconds; a long hold continues-as-new (holder first in the
   * queue) when the history grows.
   */
  lockWatchesHolder: 'tideline-2026-11-lock-watches-holder',
  /**
   * 2026-11: a foreach over more than FOREACH_BATCH_SIZE items runs its items in batches, one child
   * workflow (`foreachBatchWorkflow`) per batch, one batch after the other, so a fleet-sized loop
   * keeps every history small; the batches' undo work comes back to the run (foreach-batch.ts).
   */
  foreachBatches: 'tideline-2026-11-foreach-batches',
  /**
   * 2026-11: each foreach iteration locks the services its steps change and can name from its
   * item (sorted, per-service lock workflows), and releases them when the iteration ends.
   */
  foreachLocks: 'tideline-2026-11-foreach-locks',
  /**
   * 2026-12: the run keeps its search attributes current (TidelineRunbook, TidelineProject,
   * TidelineServices, TidelineState; workflows/run-visibility.ts): one upsert at start and one
   * whenever its state or the services it names change.
   */
  runVisibility: 'tideline-2026-12-run-visibility',
  /**
   * 2026-12: call steps that read, change or delete (not creates) run as local activities in the
   * workflow task that reaches them, one marker event each, instead of an activity task round
   * trip (workflows/activity-policies.ts, LOCAL_CALL_CLASSES).
   */
  localCalls: 'tideline-2026-12-local-calls',
  /**
   * 2027-01, the release gate (workflows/release-gate.ts): the run was started on release 2027-01
   * or later, so every patch above holds and none of them is asked for. Asked for once, first in
   * every workflow run; a run records this one patch instead of up to nine.
   */
  release2027_01: 'tideline-2027-01-release',
  /**
   * 2027-02: a call inside a `foreach` that runs iterations side by side, or inside a `parallel`,
   * is an activity task, not a local activity. Temporal's core SDK (1.24) can record a local
   * activity's marker in one workflow task and tell the workflow its result only in the next,
   * when a query was being answered as the activity finished; replay then resumes that branch one
   * task earlier, ahead of what the other branches did in between, and the run fails as
   * nondeterministic. An activity task's result is an event, read at the same point on replay.
   * Asked for at the start of a run whose definition has such steps (concurrent-calls.ts).
   */
  concurrentCallsAsTasks: 'tideline-2027-02-concurrent-calls-as-tasks',
  /**
   * 2027-03: a top-level run asks the worker which notification targets hear it (`notify.plan`, a
   * local activity at start) and tells them its events with `notify.deliver` activities
   * (workflows/run-notifier.ts). Asked at the start of every run that has no parent.
   */
  notifications: 'tideline-2027-03-notifications',
  /**
   * 2027-04: a call run as a local activity reports its attempts itself — its answer comes as
   * `{ value, attempt }` and its failures name the step and attempt in their details
   * (contract/call-attempts.ts) — and the step's record keeps the count (`callAttempts`), so the
   * CLI shows attempts and retries from tideline's records, not from the SDK's marker data. Asked
   * at the start of a run (or foreach batch) that has calls run as local activities, before any
   * of them (workflows/local-calls.ts).
   */
  localCallAttempts: 'tideline-2027-04-local-call-attempts',
  /**
   * 2027-05: the worker is the authority over a top-level run. Before any step, the `run.admit`
   * local activity checks the definition against the worker's catalogue, verifies the start's
   * signature and applies the policies (workflows/run-governance.ts); approvals with approvers
   * show and sign the plan they guard; hold actions are verified (`hold.verify`); changing steps
   * are checked by `policy.check` when the worker has step rules. Asked at the start of every run
   * that has no parent.
   */
  runAdmission: 'tideline-2027-05-run-admission',
  /**
   * 2027-06: after the first failing `parallel` branch cancels its siblings, one workflow task
   * carries the cancel requests (a 1 ms timer) before the failure goes on to compensation, so an
   * undo run as a local activity cannot end a sibling's activity before its cancel is sent
   * (workflows/sibling-cancellation.ts). Asked at the start of a run that has such a parallel.
   */
  siblingCancelSettles: 'tideline-2027-06-sibling-cancel-settles',
  /**
   * 2027-07, the second release gate: the run was started on release 2027-07 or later, so every
   * patch above holds and none is asked for. Asked first in every workflow run (the 2027-01 gate
   * only when this one does not hold); a provisioning run records this one patch instead of four.
   */
  release2027_07: 'tideline-2027-07-release',
  /**
   * 2027-09: `run.admit` also answers which notification targets hear the run (its `notifications`,
   * absent when none does), so a top-level run no longer asks `notify.plan` (one local-activity
   * marker fewer), and a run nobody hears runs no notification code at all. Asked with
   * runAdmission, before the admission.
   */
  admissionPlansNotifications: 'tideline-2027-09-admission-plans-notifications',
  /**
   * 2027-09, the third release gate: the run was started on release 2027-09 or later, so every
   * patch above holds and none is asked for. Asked first in every workflow run (the older gates
   * only when this one does not hold); a provisioning run records this one patch, and asks the
   * worker once at its start (`run.admit`) where 2027-07 asked twice.
   */
  release2027_09: 'tideline-2027-09-release',
  /**
   * 2027-10: a drift watcher starts the repair runs of findings whose rule says `repair.auto`
   * (`drift.repair`) and reads what became of them (`drift.repairOutcomes`) at each check. Asked
   * only at a check that has such work, so a watcher with nothing to repair records nothing new.
   */
  driftAutoRepair: 'tideline-2027-10-drift-auto-repair',
  /**
   * 2027-11: a run takes a service lock with `lock.take`, which starts the key's lock workflow
   * with the run holding it when none runs (no acquire signal, no grant, no workflow task for the
   * grant on either side) and queues on it as before otherwise. Asked at the start of a run (or
   * foreach batch) whose steps change a service it would lock, before any local activity
   * (workflows/local-calls.ts says why), so a run that locks nothing records nothing new.
   */
  locksStartHeld: 'tideline-2027-11-locks-start-held',
  /**
   * 2027-12: a hold action (retry, skip, rollback) is judged for the person acting: `hold.verify`
   * also evaluates the worker's current policies for them over what the action changes (refusing
   * a deny or a refusing closed window before anything changes) and answers their groups; from
   * then on every changing step is checked for the starter and each such person, also when the
   * run was admitted without step rules (workflows/hold-handlers.ts, run-governance.ts). Asked
   * when a hold action reaches its handler, so a run nobody acts on records nothing new.
   */
  holdActionsJudged: 'tideline-2027-12-hold-actions-judged',
  /**
   * 2027-12: a run reset (`temporal workflow reset`) to a point after approvals were counted asks
   * them again before its next guarded change: a decision is signed for a run id, and the reset
   * run has another (workflows/run-governance.ts, askInheritedAgain). Asked only at a guarded
   * change where some counted decision was signed for another run, which only a reset run has, so
   * a run that was never reset never asks it. Unlike the patches above it marks a point, not a
   * release: the changes made before the reset point replay without its marker (they ran without
   * asking again), and the first one reached after it records it. So it must never be asked at the
   * start of every run (nor listed in workflows/local-calls.ts): recorded there, it would hold for
   * the copied events too and make them ask again where the earlier run had not.
   */
  resetAsksAgain: 'tideline-2027-12-reset-asks-again',
} as const;

export type PatchId = (typeof PATCHES)[keyof typeof PATCHES];
