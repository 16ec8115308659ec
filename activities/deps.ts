// What activities need from the outside world, injected by the worker (or a test).
import type { CloudCaller } from '../cloud/client';

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
}

/** Approvers' public keys and groups, from the worker configuration (`approvals:`). */
export interface ApprovalSettings {
  /** Name → registered public keys (`ed25519:<base64>`); several while a key is rotated. */
  keys: ReadonlyMap<string, readonly string[]>;
  /** Group name (without `group:`) → member names. */
  groups: ReadonlyMap<string, readonly string[]>;
}

export interface ActivityDeps {
  clients: CloudClientResolver;
  /** For `approval.verify`; absent: no key is registered, so every signed decision is refused. */
  approvals?: ApprovalSettings;
  clock?: Clock;
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
