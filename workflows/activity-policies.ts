// Timeouts and retry policies per action class, in one table. The interpreter workflow uses it to
// proxy activities; it is plain data so it is safe inside the workflow sandbox.
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/common';
import type { OperationKind } from '../cloud/operations';
import type { FailureCode } from '../contract/failure-codes';
import type { StepDefinition } from '../dsl/definition';

export type ActionClass = OperationKind | 'wait';

/** Failure types that no retry can fix: a bad request, missing access, or a broken contract. */
export const NON_RETRYABLE_TYPES: FailureCode[] = [
  'CLOUD_API_BAD_REQUEST',
  'CLOUD_API_UNAUTHORIZED',
  'CLOUD_API_FORBIDDEN',
  'CLOUD_API_NOT_FOUND',
  'CLOUD_API_INVALID_RESPONSE',
  'CLOUD_API_CONFIG',
  'RESOURCE_NAME_TAKEN',
  'WAIT_TIMEOUT',
  'WAIT_FAILED_CONDITION',
  'EXPRESSION_ERROR',
  'ACTIVITY_INPUT_INVALID',
];

/** `attempts` undefined: no limit (a wait is bounded by its own deadline instead). */
const retry = (initial: string, max: string, attempts?: number): RetryPolicy => ({
  initialInterval: initial,
  backoffCoefficient: 2,
  maximumInterval: max,
  ...(attempts === undefined ? {} : { maximumAttempts: attempts }),
  nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
});

/**
 * | class  | start-to-close | heartbeat | retries                              |
 * |--------|----------------|-----------|--------------------------------------|
 * | read   | 30 s           | –         | 1 s → 30 s, 8 attempts               |
 * | mutate | 60 s           | –         | 2 s → 60 s, 12 attempts (409 = busy) |
 * | create | 2 min          | –         | 2 s → 60 s, 10 attempts, then adopt  |
 * | delete | 60 s           | –         | 2 s → 60 s, 12 attempts              |
 * | wait   | deadline + 1 m | 30 s      | 1 s → 30 s, unlimited until deadline |
 * 429 answers override the interval with the server's Retry-After (nextRetryDelay).
 */
export const ACTIVITY_POLICIES: Readonly<Record<ActionClass, ActivityOptions>> = {
  read: { startToCloseTimeout: '30s', retry: retry('1s', '30s', 8) },
  mutate: { startToCloseTimeout: '60s', retry: retry('2s', '60s', 12) },
  create: { startToCloseTimeout: '2m', retry: retry('2s', '60s', 10) },
  delete: { startToCloseTimeout: '60s', retry: retry('2s', '60s', 12) },
  // 30 s: the SDK sends a wait's heartbeats every 24 s (80 %), each a write on the server; a
  // wait on a worker that died is taken over after 30 s (activities/wait.ts, first heartbeat).
  wait: { startToCloseTimeout: '31m', heartbeatTimeout: '30s', retry: retry('1s', '30s') },
};

/** Options for a wait activity whose overall deadline is `timeoutMs` from now. */
export function waitActivityOptions(timeoutMs: number): ActivityOptions {
  return { ...ACTIVITY_POLICIES.wait, startToCloseTimeout: timeoutMs + 60_000 };
}

/**
 * Call classes that run as local activities (PATCHES.localCalls): one Cloud API request, run in
 * the workflow task that reaches the step, recorded as one marker event, instead of an activity
 * task round trip through the server (schedule, start, complete, and a workflow task to go on).
 * A local activity that was running when its worker died runs again from attempt 1, so a local
 * change always checks first whether it already took effect (activities/action-activities.ts).
 * Creates stay normal activities: create-or-adopt must tell a first attempt (a name taken by
 * someone else fails the step) from a retry (what an earlier attempt made is adopted), and only
 * the server's attempt count survives a worker crash.
 */
export const LOCAL_CALL_CLASSES: ReadonlySet<ActionClass> = new Set<ActionClass>([
  'read',
  'mutate',
  'delete',
]);

/**
 * Backoffs up to this long are slept in the worker; longer ones become a durable timer, so a
 * retried call does not keep a workflow task open for a minute (the SDK default).
 */
const LOCAL_RETRY_THRESHOLD = '10s';

/** Local-activity options for a call class: the same timeouts and retries as `ACTIVITY_POLICIES`. */
export function localCallOptions(actionClass: ActionClass): LocalActivityOptions {
  const { startToCloseTimeout, retry: policyRetry } = ACTIVITY_POLICIES[actionClass];
  return {
    ...(startToCloseTimeout !== undefined ? { startToCloseTimeout } : {}),
    ...(policyRetry !== undefined ? { retry: policyRetry } : {}),
    localRetryThreshold: LOCAL_RETRY_THRESHOLD,
  };
}

/** A call step's own `retry` over its class's policy. */
export function stepRetry(
  step: Extract<StepDefinition, { kind: 'call' }>,
  policy: RetryPolicy | undefined,
): RetryPolicy | undefined {
  if (!step.retry) return policy;
  return {
    ...policy,
    maximumAttempts: step.retry.attempts,
    initialInterval: step.retry.initialIntervalMs,
    backoffCoefficient: step.retry.backoff,
    maximumInterval: step.retry.maxIntervalMs,
  };
}
