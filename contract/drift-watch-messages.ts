// What the drift watcher (workflows/drift-watch-workflow.ts), the worker's drift activities and
// the CLI exchange. The watcher names a state file by its name only: the worker reads and checks
// its state files at start (`drift.states` of its configuration) and never takes one from a
// client. Plain data (no zod), safe in the workflow sandbox.
import { defineQuery } from '@temporalio/workflow';
import type { JsonValue } from '../dsl/expressions';

/** The activity that checks one of the worker's state files against the services the cloud lists. */
export const DRIFT_CHECK_ACTIVITY = 'drift.check';
/** The activity that tells one notification target that drift appeared or cleared. */
export const DRIFT_DELIVER_ACTIVITY = 'drift.deliver';

/** The state file is not one the worker's configuration names. */
export const DRIFT_STATE_UNKNOWN = 'DRIFT_STATE_UNKNOWN';

/** The events a watcher notifies: each once per change of its findings. */
export const DRIFT_EVENTS = ['drift-appeared', 'drift-cleared'] as const;
export type DriftEvent = (typeof DRIFT_EVENTS)[number];

/** One service breaking one rule; its identity is (rule, service id). */
export interface WatchedFinding {
  rule: string;
  severity: 'error' | 'warning';
  service: { id: string; name: string };
  expected: string;
  found: Record<string, JsonValue>;
  repair?: string;
}

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
  /** The findings that appeared, or those that cleared. */
  findings: WatchedFinding[];
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
}

export const driftWatchStatusQuery = defineQuery<DriftWatchStatus>('driftWatchStatus');

/** The watcher of a state file: one per state name and namespace. */
export function driftWatchWorkflowId(state: string): string {
  return `drift-watch-${state}`;
}
