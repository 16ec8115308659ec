// The one place where errors become Temporal failures. The failure `type` is the stable code, so
// retry policies and the interpreter match on codes; the message is the API's, never a secret.
import { ApplicationFailure } from '@temporalio/common';
import { callAttemptDetail, type CallAttemptRecord } from '../contract/call-attempts';
import { isCloudApiError } from '../cloud/errors';
import { INTERNAL_FAILURE, type ActivityFailureCode } from '../contract/failure-codes';

/** A failure raised by tideline itself (not by the API), never retried. */
export function activityFailure(
  code: ActivityFailureCode,
  message: string,
  details?: unknown,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: code,
    message,
    nonRetryable: true,
    details: details === undefined ? [] : [details],
  });
}

/**
 * The delay before the next attempt after a 429. `Retry-After: 0` means "now", but Temporal reads a
 * next-retry delay of zero as "no retry" and fails the activity, so "now" is the shortest delay.
 */
const SHORTEST_RETRY_DELAY_MS = 1;
function retryDelay(retryAfterMs: number | undefined): number | undefined {
  return retryAfterMs === undefined ? undefined : Math.max(SHORTEST_RETRY_DELAY_MS, retryAfterMs);
}

/**
 * Maps any error thrown while calling the Cloud API to an ApplicationFailure:
 * 400/401/403/404/invalid response → non-retryable; 5xx, timeouts, network errors and 409 (busy)
 * → retryable with the policy's backoff; 429 → retryable after the server's Retry-After delay.
 */
export function toActivityFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (isCloudApiError(error)) {
    return ApplicationFailure.create({
      type: error.code,
      message: error.message,
      nonRetryable: !error.retryable,
      nextRetryDelay: error.code === 'CLOUD_API_RATE_LIMITED' ? retryDelay(error.retryAfterMs) : undefined,
      details: [
        { action: error.action, status: error.status, apiCode: error.apiCode, apiDetails: error.apiDetails },
      ],
    });
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EXPRESSION_ERROR') {
    return activityFailure('EXPRESSION_ERROR', (error as Error).message);
  }
  // Unknown errors are bugs or environment trouble; let the retry policy have them.
  const message = error instanceof Error ? error.message : String(error);
  return ApplicationFailure.create({ type: INTERNAL_FAILURE, message, nonRetryable: false });
}

/**
 * The failure with the step and attempt it belongs to among its details (contract/
 * call-attempts.ts). A cancellation stays as it is: it is no failed attempt.
 */
export function withCallAttempt(error: unknown, record: CallAttemptRecord): unknown {
  if (!(error instanceof ApplicationFailure)) return error;
  return ApplicationFailure.create({
    type: error.type ?? undefined,
    message: error.message,
    nonRetryable: error.nonRetryable ?? undefined,
    nextRetryDelay: error.nextRetryDelay ?? undefined,
    details: [...(error.details ?? []), callAttemptDetail(record)],
    cause: error.cause,
    category: error.category ?? undefined,
  });
}
