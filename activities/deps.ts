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

export interface ActivityDeps {
  clients: CloudClientResolver;
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
