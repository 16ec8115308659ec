// The failed attempts of local calls that a run's history keeps, read from tideline's own records
// (contract/call-attempts.ts): a call run as a local activity that asks for its attempts raises
// failures whose details name the step (its key) and the attempt. The history keeps such a failure
// when an attempt ends the call's run in the worker: the one before a backoff longer than the
// local retry threshold (the run then sleeps on a timer and schedules the call again), and the
// last one. Attempts retried inside the worker leave nothing until the call ends.
//
// The CLI reads the failure a marker event carries (Temporal's Failure, its details decrypted with
// the run's keys) and nothing of the SDK's own marker data. Runs started before the release that
// records attempts (patch localCallAttempts) show no attempts for their local calls.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every SDK module */
import type { temporal } from '@temporalio/proto';
import type { LoadedDataConverter } from '@temporalio/common';
import { callAttemptInError } from '../contract/call-attempts';
import { timestampMillis } from '../contract/proto-time';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface FailedAttempt {
  /** The step's key. */
  step: string;
  attempt: number;
  message: string;
  /** When the history recorded it (epoch ms). */
  at: number;
}

/** The failed call attempt an event keeps, or undefined when it keeps none (or none of tideline's). */
export async function failedAttempt(
  event: HistoryEvent,
  converter: LoadedDataConverter,
): Promise<FailedAttempt | undefined> {
  const failure = event.markerRecordedEventAttributes?.failure;
  if (!failure) return undefined;
  const { decodeOptionalFailureToOptionalError } =
    require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
  let error: unknown;
  try {
    error = await decodeOptionalFailureToOptionalError(converter, failure);
  } catch {
    return undefined; // not decryptable with these keys: nothing to attribute
  }
  const found = callAttemptInError(error);
  return found === undefined
    ? undefined
    : { ...found.record, message: found.message, at: timestampMillis(event.eventTime) };
}
