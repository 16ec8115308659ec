// The cases `npm run bench` measures, in one place: lifecycle durations and worker settings.
import type { WorkerTuning } from './tuned-worker';
import type { Durations } from './lib/stack';

/** create 10 s (queued 2 s + configuring 8 s), VPC attach 10 s, pooler 10 s. */
export const STANDARD_DURATIONS: Durations = {
  queued: 2_000,
  configuring: 8_000,
  vpcAttach: 10_000,
  pooler: 10_000,
};
/** The local cloud's default (demo) pace: create 3 s, attach 1.5 s, pooler 1 s. */
export const DEMO_DURATIONS: Durations = {
  queued: 1_000,
  configuring: 2_000,
  vpcAttach: 1_500,
  pooler: 1_000,
};
/** Closer to a real cloud: create 3 min, VPC attach 1 min, pooler 1 min. */
export const LONG_DURATIONS: Durations = {
  queued: 30_000,
  configuring: 150_000,
  vpcAttach: 60_000,
  pooler: 60_000,
};

export function lifecycleMs(durations: Durations): number {
  return (
    (durations.queued ?? 0) +
    (durations.configuring ?? 0) +
    (durations.vpcAttach ?? 0) +
    (durations.pooler ?? 0)
  );
}

/**
 * Worker settings for many concurrent runbooks. A wait holds an activity slot for as long as it
 * polls, so slots must cover every run that can wait at once (the SDK default of 100 lets only
 * 100 runs make progress); the sticky cache must hold every open run, or workflow tasks replay
 * their histories from the start (its default follows the heap limit, so it is set explicitly).
 */
export const TUNED_WORKER: WorkerTuning = {
  maxConcurrentActivityTaskExecutions: 2_000,
  maxCachedWorkflows: 2_000,
  maxConcurrentWorkflowTaskExecutions: 100,
  maxConcurrentActivityTaskPolls: 20,
  maxConcurrentWorkflowTaskPolls: 20,
};

/**
 * Node flags of the tuned worker process: V8 otherwise lets the heap grow towards its default
 * limit (a quarter of RAM) before collecting, and RSS with it.
 */
export const TUNED_WORKER_NODE_ARGS = ['--max-old-space-size=640'];
