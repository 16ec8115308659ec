// The repairs a drift watcher starts itself: for findings whose rule says `repair.auto`, once per
// appearance. A finding carries the id of its repair run from the check that started it until it
// clears, so a finding that stays open is repaired once however many checks see it, and one that
// clears and comes back is repaired again. The run is an ordinary run (activities/drift-watch.ts
// starts it as the worker's `drift.repairAs`, with a workflow id chosen here, so a retried start
// starts nothing twice); the watcher then reads what became of it at each check until it ends,
// and tells its targets once per change. Workflow code: no I/O; the starts and reads are activities.
import { log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import {
  DRIFT_REPAIR_ACTIVITY,
  DRIFT_REPAIR_OUTCOMES_ACTIVITY,
  DRIFT_REPAIR_UNCONFIGURED,
  DRIFT_STATE_UNKNOWN,
  driftRepairWorkflowId,
  findingKey,
  type WatchedFinding,
  type DriftRepairOutcomes,
  type DriftRepairInput,
  type WatchedRepair,
} from '../contract/drift-watch-messages';
import { summariseFailure } from './step-failure';

/** Ended repairs kept in the watcher's state (and `describe`) besides those not ended yet. */
export const ENDED_REPAIRS_KEPT = 20;

/** Failures that trying again will not mend: not retried, and a repair they stop is not started. */
const FINAL_FAILURES: readonly string[] = [DRIFT_STATE_UNKNOWN, DRIFT_REPAIR_UNCONFIGURED];

const repairActivities = proxyActivities<TidelineActivities>({
  startToCloseTimeout: '1m',
  summary: 'repair drift',
  retry: { maximumAttempts: 5, initialInterval: '2s', nonRetryableErrorTypes: [...FINAL_FAILURES] },
});
const startRepair = repairActivities[DRIFT_REPAIR_ACTIVITY];
const readOutcomes = repairActivities[DRIFT_REPAIR_OUTCOMES_ACTIVITY];

/** A repair the watcher is about to start: one run per service and repair runbook. */
export interface RepairToStart {
  service: { id: string; name: string };
  runbook: string;
  findings: WatchedFinding[];
}

/** The findings of `now` with the repair run each had at the previous check, while it stays open. */
export function carryRepairRuns(
  before: readonly WatchedFinding[],
  now: readonly WatchedFinding[],
): WatchedFinding[] {
  const runs = new Map(
    before.flatMap((finding) =>
      finding.repairRun === undefined ? [] : [[findingKey(finding), finding.repairRun]],
    ),
  );
  return now.map((finding) => {
    const repairRun = runs.get(findingKey(finding));
    return repairRun === undefined ? finding : { ...finding, repairRun };
  });
}

/** The open findings a watcher repairs now: rules with `repair.auto`, not repaired since they appeared. */
export function repairsToStart(findings: readonly WatchedFinding[]): RepairToStart[] {
  const groups = new Map<string, RepairToStart>();
  for (const finding of findings) {
    if (finding.auto !== true || finding.repair === undefined || finding.repairRun !== undefined) continue;
    const key = JSON.stringify([finding.service.id, finding.repair]);
    const group = groups.get(key);
    if (group === undefined)
      groups.set(key, { service: finding.service, runbook: finding.repair, findings: [finding] });
    else group.findings.push(finding);
  }
  return [...groups.values()];
}

/** A run still worth reading: running, or stopped for a person, a window or an operator. */
export function stillOpen(repair: WatchedRepair): boolean {
  const kind = repair.outcome.kind;
  return !['repaired', 'refused', 'failed', 'not-started'].includes(kind);
}

/** Every repair not ended yet, and the latest ended ones; oldest first. */
export function keptRepairs(repairs: readonly WatchedRepair[]): WatchedRepair[] {
  const ended = repairs.filter((repair) => !stillOpen(repair));
  const dropped = new Set(ended.slice(0, Math.max(0, ended.length - ENDED_REPAIRS_KEPT)));
  return repairs.filter((repair) => !dropped.has(repair));
}

/** What one check's repair work did, for the watcher to notify. */
export interface RepairRound {
  findings: WatchedFinding[];
  repairs: WatchedRepair[];
  started: WatchedRepair[];
  /** Repairs whose outcome changed (a refusal to start included). */
  changed: WatchedRepair[];
}

/**
 * Whether this check has repair work: an auto finding not repaired yet, or a run to read. Asked
 * before the patch that guards it, so a watcher with nothing to repair records no new command.
 */
export function hasRepairWork(
  findings: readonly WatchedFinding[],
  repairs: readonly WatchedRepair[],
): boolean {
  return repairsToStart(findings).length > 0 || repairs.some(stillOpen);
}

/**
 * Starts one repair. A start whose activity failed for good may still have started the run (its
 * answer lost): it is kept as running, and the next check's reading finds out (a run that is not
 * there reads as not started, REPAIR_RUN_NOT_FOUND). Either way the finding keeps the run's id,
 * so it is not started again under another.
 */
async function startOne(
  input: DriftRepairInput,
  check: number,
): Promise<{ repair: WatchedRepair; started: boolean }> {
  const { state: _state, ...base } = input;
  try {
    const result = await startRepair(input);
    return result.started
      ? {
          // The worker names the run after the drift it mends (shared with reconcile's repairs).
          repair: {
            ...base,
            workflowId: result.workflowId ?? base.workflowId,
            check,
            outcome: { kind: 'running' },
          },
          started: true,
        }
      : {
          repair: {
            ...base,
            check,
            outcome: { kind: 'not-started', code: result.code, reason: result.reason },
          },
          started: false,
        };
  } catch (error) {
    const failure = summariseFailure(error);
    log.warn('a drift repair could not be started', { workflowId: input.workflowId, error: failure.message });
    const outcome: WatchedRepair['outcome'] = FINAL_FAILURES.includes(failure.type)
      ? { kind: 'not-started', code: failure.type, reason: failure.message }
      : { kind: 'running' };
    return { repair: { ...base, check, outcome }, started: false };
  }
}

/** What became of the runs still open; none known when reading fails (read again next check). */
async function readOpen(repairs: readonly WatchedRepair[]): Promise<DriftRepairOutcomes> {
  const reading = repairs.filter(stillOpen);
  if (reading.length === 0) return {};
  try {
    return await readOutcomes({ workflowIds: reading.map((repair) => repair.workflowId) });
  } catch (error) {
    log.warn('drift repair runs could not be read', { error: summariseFailure(error).message });
    return {};
  }
}

/** Reads the open repairs, then starts the repairs this check's findings need. */
export async function repairRound(
  state: string,
  check: number,
  findings: readonly WatchedFinding[],
  repairs: readonly WatchedRepair[],
): Promise<RepairRound> {
  const changed: WatchedRepair[] = [];
  const outcomes = await readOpen(repairs);
  const read = repairs.map((repair) => {
    const outcome = outcomes[repair.workflowId];
    if (outcome === undefined || JSON.stringify(outcome) === JSON.stringify(repair.outcome)) return repair;
    const updated = { ...repair, outcome };
    changed.push(updated);
    return updated;
  });
  const watcherId = workflowInfo().workflowId;
  const toStart = repairsToStart(findings);
  const starts = await Promise.all(
    toStart.map((repair, index) =>
      startOne(
        {
          state,
          workflowId: driftRepairWorkflowId(watcherId, check, index),
          service: repair.service,
          runbook: repair.runbook,
          rules: repair.findings.map((finding) => finding.rule),
        },
        check,
      ),
    ),
  );
  const runOf = new Map(
    toStart.flatMap((repair, index) =>
      repair.findings.map((finding) => [findingKey(finding), starts[index]?.repair.workflowId]),
    ),
  );
  const tried = starts.map((start) => start.repair);
  return {
    findings: findings.map((finding) => {
      const repairRun = runOf.get(findingKey(finding));
      return repairRun === undefined ? finding : { ...finding, repairRun };
    }),
    repairs: keptRepairs([...read, ...tried]),
    started: starts.filter((start) => start.started).map((start) => start.repair),
    changed: [...changed, ...tried.filter((repair) => repair.outcome.kind === 'not-started')],
  };
}
