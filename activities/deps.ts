// What activities need from the outside world, injected by the worker (or a test).
import type { ActionInput, ActionName, ActionOutput } from '../cloud/operations';

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The part of the typed Cloud API client that activities use. */
export interface CloudCaller {
  call<A extends ActionName>(
    action: A,
    input: ActionInput<A>,
    options?: CallOptions,
  ): Promise<ActionOutput<A>>;
}

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
  /** Source of randomness for poll jitter (tests pin it). */
  random?: () => number;
}

export const systemClock: Clock = { now: () => Date.now() };
