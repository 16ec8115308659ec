// A run started from a traced pipeline continues the pipeline's trace. TRACEPARENT (and
// TRACESTATE), the W3C trace context that CI systems and otel-cli put in the environment, go with
// the start in the header Temporal's OpenTelemetry interceptors read on the worker, so a tracing
// worker's run span becomes a child of the pipeline's span (docs/worker.md, tracing). The CLI
// itself makes no span and sends nothing anywhere; without TRACEPARENT nothing changes.
/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only when a context is given */
import type { WorkflowClientInterceptor } from '@temporalio/client';

/** version 00, a trace id and a parent span id that are not all zeros, the flags. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The W3C text map a propagator reads: `traceparent`, and `tracestate` when given. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/**
 * The trace context in the environment, or undefined when there is none. A malformed TRACEPARENT
 * is left out with a warning (the run starts untraced), as OpenTelemetry's propagators do.
 */
export function traceContextFromEnv(
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): TraceCarrier | undefined {
  const traceparent = env.TRACEPARENT?.trim().toLowerCase();
  if (traceparent === undefined || traceparent === '') return undefined;
  if (!TRACEPARENT.test(traceparent)) {
    warn(
      'warning: TRACEPARENT is not a W3C trace context (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>); the run starts without it',
    );
    return undefined;
  }
  const tracestate = env.TRACESTATE?.trim();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** Adds the trace context to every workflow the client starts. */
export function traceContextInterceptor(carrier: TraceCarrier): WorkflowClientInterceptor {
  const { defaultPayloadConverter } = require('@temporalio/common') as typeof import('@temporalio/common');
  // The header name Temporal's OpenTelemetry interceptors use (the worker's inbound one reads it).
  const { TRACE_HEADER } =
    require('@temporalio/interceptors-opentelemetry/lib/instrumentation') as typeof import('@temporalio/interceptors-opentelemetry/lib/instrumentation');
  const header = defaultPayloadConverter.toPayload(carrier);
  const traced = <Input extends { headers: Record<string, unknown> }>(input: Input): Input => ({
    ...input,
    headers: { ...input.headers, [TRACE_HEADER]: header },
  });
  return {
    start: (input, next) => next(traced(input)),
    signalWithStart: (input, next) => next(traced(input)),
  };
}
