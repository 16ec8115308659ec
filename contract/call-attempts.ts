// How a call run as a local activity tells its attempts in tideline's own terms (patch
// localCallAttempts). A local activity retries inside the worker, out of the workflow's sight, and
// the SDK keeps its attempt count only in a marker format of its own; so, when the run asks (the
// activity input names the step), the call reports them itself:
//   - its answer comes back as `{ value, attempt }`: the workflow keeps `attempt` in the step's
//     record (`StepRecord.callAttempts`), read by `tideline status`, `history` and the report;
//   - every failure it raises carries, among its details, `{ tidelineCallAttempt: { step,
//     attempt } }`: a failed attempt the history keeps (the one before a long backoff, the last one)
//     names its step by key, so the CLI attributes it without guessing.
// Plain data and type guards only: workflow code imports this module.

/** The activity input field that asks for the records, naming the step (its key). */
export interface CallAttemptRequest {
  recordAttemptsFor?: string;
}

/** A call's answer when the run asked for its attempts. */
export interface RecordedCallResult {
  value: unknown;
  attempt: number;
}

/** A failed attempt, as its failure's details name it. */
export interface CallAttemptRecord {
  step: string;
  attempt: number;
}

/** The key of the failure detail that holds a CallAttemptRecord. */
export const CALL_ATTEMPT_DETAIL = 'tidelineCallAttempt';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isRecordedCallResult(value: unknown): value is RecordedCallResult {
  return isRecord(value) && typeof value.attempt === 'number' && Object.hasOwn(value, 'value');
}

/** The failure detail that says which step's which attempt failed. */
export function callAttemptDetail(record: CallAttemptRecord): Record<string, CallAttemptRecord> {
  return { [CALL_ATTEMPT_DETAIL]: record };
}

/** The attempt record among a failure's (decoded) details, if it carries one. */
export function callAttemptOf(details: readonly unknown[] | undefined): CallAttemptRecord | undefined {
  for (const detail of details ?? []) {
    const record = isRecord(detail) ? detail[CALL_ATTEMPT_DETAIL] : undefined;
    if (isRecord(record) && typeof record.step === 'string' && typeof record.attempt === 'number')
      return { step: record.step, attempt: record.attempt };
  }
  return undefined;
}

/**
 * The attempt record of a failure as the workflow or the CLI decoded it: on the call's own failure,
 * or on the one it caused (a failure the SDK wrapped), with that failure's message.
 */
export function callAttemptInError(
  error: unknown,
): { record: CallAttemptRecord; message: string } | undefined {
  let current = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const record = callAttemptOf((current as { details?: unknown[] | null }).details ?? undefined);
    if (record !== undefined) return { record, message: current.message };
    current = current.cause;
  }
  return undefined;
}
