// A span per Cloud API request an activity makes: the operation, its HTTP method and path template,
// the answer's status (or the failure's code) and the activity's attempt, under the activity's span
// and so under the run's step. The runbook and step come from the baggage the step span set in the
// workflow. Only names, codes and numbers go in: never the input, the answer, a header or a
// credential. With tracing off no tracer provider is registered, the span is not recording, and
// the call runs as it would without this.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { isCloudApiError } from '../cloud/errors';
import { operations, type ActionName } from '../cloud/operations';
import { TIDELINE_TRACER, TRACE_ATTRIBUTES as A, TRACE_BAGGAGE } from '../contract/trace-attributes';

export interface CallSpanFacts {
  action: ActionName;
  /** The activity's attempt, when the call runs in an activity. */
  attempt?: number | undefined;
  /** Entries of the active baggage; only tideline's own (runbook, step) are taken. */
  baggage?: Readonly<Record<string, string>> | undefined;
  /** The answer's HTTP status, when one arrived. */
  status?: number | undefined;
  /** The failure's stable code (CLOUD_API_CONFLICT…), when the call failed. */
  errorCode?: string | undefined;
}

/** The attributes of a call span: names, codes and numbers from the catalogue and the call. */
export function callSpanAttributes(facts: CallSpanFacts): Attributes {
  const def = operations[facts.action];
  const attributes: Attributes = {
    [A.operation]: facts.action,
    [A.httpMethod]: def.method,
    [A.urlTemplate]: def.path,
  };
  for (const name of TRACE_BAGGAGE) {
    const value = facts.baggage?.[name];
    if (value !== undefined) attributes[name] = value;
  }
  if (facts.attempt !== undefined) attributes[A.attempt] = facts.attempt;
  if (facts.status !== undefined) attributes[A.httpStatus] = facts.status;
  if (facts.errorCode !== undefined) attributes[A.errorType] = facts.errorCode;
  return attributes;
}

/**
 * Runs `call` (one Cloud API request) inside a call span. `call` is handed a function to report
 * the answer's status with (the client's `onStatus`); a failed call's status and code are read
 * from its CloudApiError. Nothing about the error's message is recorded.
 */
export async function inCallSpan<T>(
  action: ActionName,
  call: (onStatus: ((status: number) => void) | undefined) => Promise<T>,
): Promise<T> {
  const parent = context.active();
  const span = trace
    .getTracer(TIDELINE_TRACER)
    .startSpan(`CloudApi:${action}`, { kind: SpanKind.CLIENT }, parent);
  if (!span.isRecording()) return call(undefined);
  let status: number | undefined;
  let errorCode: string | undefined;
  try {
    return await context.with(trace.setSpan(parent, span), () => call((answered) => (status = answered)));
  } catch (error) {
    errorCode = isCloudApiError(error) ? error.code : 'ERROR';
    if (isCloudApiError(error) && error.status !== undefined) status = error.status;
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.setAttributes(
      callSpanAttributes({
        action,
        attempt: activityAttempt(),
        baggage: baggageOf(parent),
        status,
        errorCode,
      }),
    );
    span.end();
  }
}

function baggageOf(active: ReturnType<typeof context.active>): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [name, entry] of propagation.getBaggage(active)?.getAllEntries() ?? [])
    entries[name] = entry.value;
  return entries;
}

/** The attempt of the activity this runs in; undefined outside one (a test calling directly). */
function activityAttempt(): number | undefined {
  try {
    return Context.current().info.attempt;
  } catch {
    return undefined;
  }
}
