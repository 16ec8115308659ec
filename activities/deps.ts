// What activities need from the outside world, injected by the worker (or a test).
import type { CloudCaller } from '../cloud/client';
import type { StartLedger } from './start-once';
import type { Secret } from '../cloud/redact';
import type { NotificationEvent } from '../dsl/notify-subscriptions';
import type { CompiledGovernance } from '../dsl/policies';
import type {
  DriftCheckResult,
  DriftRepairInput,
  DriftRepairOutcomes,
  DriftRepairResult,
} from '../contract/drift-watch-messages';

export type { CallOptions, CloudCaller } from '../cloud/client';

/**
 * Gives the client holding the credentials of a project. Credentials come from the worker's
 * configuration, never from workflow input. `undefined` asks for the default project.
 */
export interface CloudClientResolver {
  forProject(projectId: string | undefined): CloudCaller;
}

export interface Clock {
  now(): number;
  /**
   * Begins a wait until `at` on this clock and says how many real milliseconds it lasts; absent:
   * `at - now()`. A rehearsal's stepped clock moves itself to `at` and answers 0.
   */
  waitUntil?(at: number): number;
}

/** Approvers' public keys and groups, from the worker configuration (`approvals:`). */
export interface ApprovalSettings {
  /** Name → registered public keys (`ed25519:<base64>`); several while a key is rotated. */
  keys: ReadonlyMap<string, readonly string[]>;
  /** Group name (without `group:`) → member names. */
  groups: ReadonlyMap<string, readonly string[]>;
}

/**
 * The worker's runbook catalogue (`catalog:`): the definitions it runs, by content hash
 * (definition-hash.ts). `development`: any definition a client sends runs (ad-hoc runbooks).
 */
export interface CatalogSettings {
  mode: 'catalog' | 'development';
  entries: ReadonlyMap<string, { name: string; file: string }>;
}

/** A notification target from the worker configuration (`notifications.targets`). */
export interface NotificationTarget {
  type: 'webhook' | 'slack';
  /** Whoever has it can post: never recorded, logged or put in an error message. */
  url: Secret;
  /** Absent: every event. */
  events?: readonly NotificationEvent[];
  /** Runbook names or `*` patterns heard without naming the target; absent: every runbook. */
  runbooks?: readonly string[];
}

/** The worker configuration's `notifications:`. */
export interface NotificationSettings {
  targets: ReadonlyMap<string, NotificationTarget>;
  webUiUrl?: string;
  maxAttempts: number;
  retryIntervalMs: number;
}

/**
 * The worker's drift watch (`drift:` of its configuration): its state files, checked by name, and
 * the notification targets that hear drift appear and clear. Built by the worker from state/.
 */
export interface DriftWatchSettings {
  /** Checks the named state file; undefined when the configuration does not name it. */
  check(state: string): Promise<Omit<DriftCheckResult, 'targets' | 'retry'>> | undefined;
  /** Targets of `notifications.targets` that hear drift watchers. */
  targets: readonly string[];
  /**
   * Starts a repair run as the worker's `drift.repairAs` (rules with `repair.auto`); absent when
   * the configuration names no `repairAs`.
   */
  repair?(input: DriftRepairInput): Promise<DriftRepairResult>;
  /** Reads what became of repair runs, by workflow id (absent with `repair`). */
  repairOutcomes?(workflowIds: readonly string[]): Promise<DriftRepairOutcomes>;
}

export interface ActivityDeps {
  clients: CloudClientResolver;
  /** For `approval.verify`; absent: no key is registered, so every signed decision is refused. */
  approvals?: ApprovalSettings;
  /** For `run.admit`; absent: development mode (any definition runs). */
  catalog?: CatalogSettings;
  /** The worker's policies and calendars (`policies:`, `calendars:`); absent: none. */
  governance?: CompiledGovernance;
  /** For `notify.plan` and `notify.deliver`; absent: no target is configured. */
  notifications?: NotificationSettings;
  /** For `drift.check`; absent: the worker watches no state file. */
  drift?: DriftWatchSettings;
  /**
   * Where `run.admit` claims start signatures and reads schedules (start-once.ts); absent: no
   * verified signed start is refused (START_REPLAYED): a replayed one could not be told.
   */
  startLedger?: StartLedger;
  /** How notifications are posted (tests may wrap it); default the global fetch. */
  fetch?: typeof fetch;
  clock?: Clock;
  /**
   * The time policies and change windows are evaluated at (`run.admit`, `policy.check`); default
   * `clock`. `tideline test` sets a case's clock here, leaving waits and signatures on real time.
   */
  policyClock?: Clock;
  /** Per-request timeout used by waits, so a hung request cannot outlive a heartbeat. */
  pollRequestTimeoutMs?: number;
  /** Longest pause between two heartbeats of a wait (default 5 s; tests shorten it). */
  heartbeatSliceMs?: number;
  /** How far into its attempt a wait first heartbeats (default 12 s; tests shorten it). */
  firstHeartbeatAfterMs?: number;
  /** Source of randomness for poll jitter (tests pin it). */
  random?: () => number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** How long, in real milliseconds, a wait from `now` until `at` lasts on `clock`. */
export function realWaitMs(clock: Clock, at: number, now: number): number {
  return clock.waitUntil !== undefined ? clock.waitUntil(at) : Math.max(0, at - now);
}
