// The repair runs of a reconcile, whoever reconciles (`tideline reconcile`, a state case of
// `tideline test`): each planned repair started as an ordinary run through the caller's start
// path, then all of them watched together until each ends or stops where a reconcile must not
// wait — an approval a person has to give, a closed change window, a step held for an operator.
// How a run is started and read is the caller's (a CLI session, a test stack); what its state
// means for the repair is decided once, in contract/repair-outcome.ts (a drift watcher reads its
// repairs with it too).
import type { WorkflowHandle } from '@temporalio/client';
import { endedOutcome, stoppedAt, type EndedRun, type RepairOutcome } from '../contract/repair-outcome';
import type { RunProgress } from '../contract/run-messages';
import type { PlannedRepair } from '../state/repair-plan';

export { endedOutcome, stoppedAt, type EndedRun, type RepairOutcome };

export interface RepairRun {
  repair: PlannedRepair;
  workflowId: string;
  /** The run was this repair's already (another reconcile or a drift watcher started it): joined. */
  joined?: true;
  outcome: RepairOutcome;
}

/** A start that found the repair's run there already: that run is watched instead. */
export interface JoinedRun {
  joined: WorkflowHandle;
}

/** What the watching reads of a run each time round. */
export interface RunState {
  closed: boolean;
  progress?: RunProgress;
}

/** How the caller starts and reads runs. */
export interface RepairRunDriver<State extends RunState> {
  /**
   * A repair's run, ready to start: its workflow id (the run's, or the base of it: the started or
   * joined run's handle has the last word) and how to start it. What fails here (the
   * starter's key, say) ends the reconcile; a refusal of `start` is given back by `notStarted`.
   */
  prepare(repair: PlannedRepair): { workflowId: string; start(): Promise<WorkflowHandle | JoinedRun> };
  /** The error of `start` as a run that did not start, or undefined when it is not one (rethrown). */
  notStarted(error: unknown): { code: string; reason: string } | undefined;
  observe(handle: WorkflowHandle): Promise<State>;
  /** How a run that `observe` saw closed ended. */
  ended(handle: WorkflowHandle, state: State): Promise<EndedRun>;
  /** Resolves when the watching must stop (the runs go on). */
  interrupted: Promise<void>;
  pollMs: number;
}

export interface RepairRunEvents {
  /** Told when a run starts (or is joined: the repair's run was there) and when watching it ends. */
  onStarted: (repair: PlannedRepair, workflowId: string, joined: boolean) => void;
  onEnded: (run: RepairRun) => void;
}

function pause(ms: number, interrupted: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void interrupted.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Starts every repair, then watches them together until each has ended or stopped. */
export async function runRepairs<State extends RunState>(
  repairs: readonly PlannedRepair[],
  driver: RepairRunDriver<State>,
  events: RepairRunEvents,
): Promise<RepairRun[]> {
  const runs: RepairRun[] = [];
  const watched: { run: RepairRun; handle: WorkflowHandle }[] = [];
  for (const repair of repairs) {
    const { workflowId, start } = driver.prepare(repair);
    const run: RepairRun = { repair, workflowId, outcome: { kind: 'detached' } };
    runs.push(run);
    try {
      const started = await start();
      const joined = 'joined' in started;
      const handle = joined ? started.joined : started;
      // The run's own id (a repair's run ids carry a generation after the prepared one).
      run.workflowId = handle.workflowId;
      if (joined) run.joined = true;
      watched.push({ run, handle });
      events.onStarted(repair, run.workflowId, joined);
    } catch (error) {
      const refused = driver.notStarted(error);
      if (refused === undefined) throw error;
      run.outcome = { kind: 'not-started', ...refused };
      events.onEnded(run);
    }
  }
  let interrupted = false;
  const interruption = driver.interrupted.then(() => void (interrupted = true));
  let open = watched;
  while (open.length > 0 && !interrupted) {
    const still: typeof open = [];
    for (const entry of open) {
      const state = await driver.observe(entry.handle);
      const outcome = state.closed
        ? endedOutcome(await driver.ended(entry.handle, state))
        : stoppedAt(state.progress, Date.now());
      if (outcome === undefined) still.push(entry);
      else {
        entry.run.outcome = outcome;
        events.onEnded(entry.run);
      }
    }
    open = still;
    if (open.length > 0) await pause(driver.pollMs, interruption);
  }
  return runs;
}
