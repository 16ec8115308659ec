// Step spans: each step a run takes is a span under the run's span (the RunWorkflow span of the
// SDK's OpenTelemetry interceptor), so the activities the step schedules and their Cloud API calls
// hang below it. Only the traced workflow bundle (worker/tracing.ts) registers a tracer provider;
// in the plain bundle the OpenTelemetry API is a no-op, the span is not recording, and the step
// runs as a plain call. Spans emit no commands: they leave the workflow through the interceptor's
// sink, which the SDK does not call during replay. Attributes are names, keys and codes only.
import { context, propagation, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { StepRecord } from '../contract/run-messages';
import { TIDELINE_TRACER, TRACE_ATTRIBUTES as A } from '../contract/trace-attributes';

/** What a step span says about its step: from the step's record, which never holds a secret. */
export function stepSpanAttributes(runbook: string, record: StepRecord): Attributes {
  return {
    [A.runbook]: runbook,
    [A.step]: record.key,
    [A.stepId]: record.id,
    [A.stepKind]: record.kind,
    ...(record.action !== undefined ? { [A.operation]: record.action } : {}),
    ...(record.compensates !== undefined ? { [A.compensates]: record.compensates } : {}),
  };
}

/**
 * Runs `body` inside a span for the step `record` describes; the span ends with the record's
 * status (and its failure's code). The runbook and step key also go into the span's baggage, so
 * the activities scheduled inside can label their Cloud API call spans with them. Not recording
 * (tracing off), it gives `body()`'s own promise: not even a microtask of difference, so the order
 * in which concurrent steps emit their commands stays exactly as it was.
 */
export function inStepSpan<T>(runbook: string, record: StepRecord, body: () => Promise<T>): Promise<T> {
  const parent = context.active();
  const span = trace
    .getTracer(TIDELINE_TRACER)
    .startSpan(`Step:${record.key}`, { attributes: stepSpanAttributes(runbook, record) }, parent);
  if (!span.isRecording()) return body();
  const baggage = (propagation.getBaggage(parent) ?? propagation.createBaggage())
    .setEntry(A.runbook, { value: runbook })
    .setEntry(A.step, { value: record.key });
  const inside = trace.setSpan(propagation.setBaggage(parent, baggage), span);
  // One `then`, no async wrapper: the fewest microtasks a span that ends after its step can add.
  return context.with(inside, body).then(
    (result) => {
      endStepSpan(span, record, false);
      return result;
    },
    (error: unknown) => {
      endStepSpan(span, record, true);
      throw error;
    },
  );
}

function endStepSpan(span: Span, record: StepRecord, threw: boolean): void {
  span.setAttribute(A.stepStatus, record.status);
  if (record.error !== undefined) span.setAttribute(A.errorType, record.error.type);
  if (threw || record.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Labels the run's own span (the interceptor's RunWorkflow span) with the runbook's name. */
export function noteRunbookOnRunSpan(runbook: string): void {
  trace.getActiveSpan()?.setAttribute(A.runbook, runbook);
}
