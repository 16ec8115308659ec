// What the drift watcher (workflows/drift-watch-workflow.ts), the worker's drift activities and
// the CLI exchange. The watcher names a state file by its name only: the worker reads and checks
// its state files at start (`drift.states` of its configuration) and never takes one from a
// client. Plain data (no zod), safe in the workflow sandbox.
import { defineQuery } from '@temporalio/workflow';
import type { JsonValue } from '../dsl/expressions';
import type { RepairOutcome } from './repair-outcome';

/** The activity that checks one of the worker's state files against the services the cloud lists. */
export const DRIFT_CHECK_ACTIVITY = 'drift.check';
/** The activity that tells one notification target that drift appeared or cleared. */
export const DRIFT_DELIVER_ACTIVITY = 'drift.deliver';
/** The activity that starts the repair run of findings whose rule allows automatic repair. */
export const DRIFT_REPAIR_ACTIVITY = 'drift.repair';
/** The activity that reads what became of a watcher's repair runs. */
export const DRIFT_REPAIR_OUTCOMES_ACTIVITY = 'drift.repairOutcomes';

/** The state file is not one the worker's configuration names. */
export const DRIFT_STATE_UNKNOWN = 'DRIFT_STATE_UNKNOWN';
/** A rule allows automatic repair but the worker has no `drift.repairAs` to start runs as. */
export const DRIFT_REPAIR_UNCONFIGURED = 'DRIFT_REPAIR_UNCONFIGURED';

/** Why a watcher's repair run was not started (besides a state file problem of repair-plan.ts). */
export const DRIFT_REPAIR_CODES = [
  /** The findings were gone when the repair was about to start: nothing to repair. */
  'REPAIR_NOT_NEEDED',
  /** The repair run's workflow id is unknown to Temporal (removed by retention, say). */
  'REPAIR_RUN_NOT_FOUND',
] as const;
export type DriftRepairCode = (typeof DRIFT_REPAIR_CODES)[number];

/**
 * The events a watcher notifies: drift appeared or cleared, each once per change of its findings;
 * a repair run started (rules with `repair.auto`), and what became of it, once per change.
 */
export const DRIFT_EVENTS = ['drift-appeared', 'drift-cleared', 'repair-started', 'repair-outcome'] as const;
export type DriftEvent = (typeof DRIFT_EVENTS)[number];

/** One service breaking one rule; its identity is (rule, service id). */
export interface WatchedFinding {
  rule: string;
  severity: 'error' | 'warning';
  service: { id: string; name: string };
  expected: string;
  found: Record<string, JsonValue>;
  repair?: string;
  /** The rule allows a watcher to start the repair itself (`repair.auto` in the state file). */
  auto?: true;
  /**
   * The watcher's repair run for this appearance of the finding (set once it was started or
   * refused to start): the finding is not repaired again while it stays open.
   */
  repairRun?: string;
}

/** A repair run a watcher started, or tried to: what it repairs and what became of it. */
export interface WatchedRepair {
  workflowId: string;
  /** The repair runbook, as the state file names it. */
  runbook: string;
  service: { id: string; name: string };
  rules: string[];
  /** The watcher's check that found the drift. */
  check: number;
  /** `running` until the run stops for someone, ends, or did not start. */
  outcome: RepairOutcome | { kind: 'running' };
}

export interface DriftRepairInput {
  state: string;
  /** The watcher's id for the attempt; the run's own is derived from the drift (see the result). */
  workflowId: string;
  service: { id: string; name: string };
  runbook: string;
  rules: string[];
}

/**
 * A repair run started (or was started already), or why not. `workflowId` is the run's id as the
 * worker derived it from the drift (worker/repair-run-id.ts); absent from older workers' answers,
 * whose run had the id of the input.
 */
export type DriftRepairResult =
  { started: true; workflowId?: string } | { started: false; code: string; reason: string };

export interface DriftRepairOutcomesInput {
  workflowIds: string[];
}

/** By workflow id: what became of each run. */
export type DriftRepairOutcomes = Record<string, WatchedRepair['outcome']>;

export function findingKey(finding: Pick<WatchedFinding, 'rule' | 'service'>): string {
  return `${finding.rule}\u0000${finding.service.id}`;
}

export interface DriftCheckInput {
  /** The state file's `name`, as the worker's configuration loaded it. */
  state: string;
}

export interface DriftCheckResult {
  projectId: string;
  /** The findings that are drift (severity error or warning), sorted by service name and rule. */
  findings: WatchedFinding[];
  /** How many (rule, service) pairs were checked. */
  checked: number;
  /** The notification targets that hear this watcher (the worker's `drift.notify`). */
  targets: string[];
  /** How deliveries are retried (the worker configuration's, so the workflow stays deterministic). */
  retry: { maximumAttempts: number; initialIntervalMs: number };
}

/** What a target receives: secret-free (service ids, names and the fields the rules read). */
export interface DriftNotificationPayload {
  /** Stable per watcher and change, so a receiver can drop a redelivery. */
  id: string;
  event: DriftEvent;
  state: string;
  projectId: string;
  /** The findings that appeared, those that cleared, or those the repairs are for. */
  findings: WatchedFinding[];
  /** `repair-started` and `repair-outcome`: the repair runs. */
  repairs?: WatchedRepair[];
  /** How many findings are open after this change. */
  open: number;
  workflowId: string;
  /** Workflow time of the check, ISO 8601. */
  at: string;
}

export interface DriftDeliverInput {
  target: string;
  payload: DriftNotificationPayload;
}

/** How a watcher starts, and what it carries over a continue-as-new. */
export interface DriftWatchInput {
  state: string;
  everyMs: number;
  /** The previous check's findings (absent: none known yet, so all drift found first is new). */
  findings?: WatchedFinding[];
  /** Checks done by earlier runs of this watcher. */
  checks?: number;
  notified?: number;
  /** The repair runs kept (the latest, and every one not yet ended). */
  repairs?: WatchedRepair[];
  /** How many checks one run holds before it continues as new (default 100; tests lower it). */
  checksPerRun?: number;
}

export interface DriftWatchStatus {
  state: string;
  everyMs: number;
  /** Checks done so far (over continue-as-new). */
  checks: number;
  lastCheckAt?: string;
  /** Why the last check failed (the findings before it are kept). */
  lastError?: string;
  findings: WatchedFinding[];
  /** Notifications delivered, and the deliveries that failed with why. */
  notified: number;
  failed: { event: DriftEvent; target: string; error: string }[];
  /** Repair runs started for rules with `repair.auto` (the latest, and every one not yet ended). */
  repairs: WatchedRepair[];
}

export const driftWatchStatusQuery = defineQuery<DriftWatchStatus>('driftWatchStatus');

/** The watcher of a state file: one per state name and namespace. */
export function driftWatchWorkflowId(state: string): string {
  return `drift-watch-${state}`;
}

/** A watcher's repair run: the nth repair started after check `check`. */
export function driftRepairWorkflowId(watcherId: string, check: number, index: number): string {
  return `${watcherId}-repair-${check}-${index + 1}`;
}
