// The workflow interceptors of the traced bundle: the SDK's OpenTelemetry interceptors, which make
// a run's span (RunWorkflow), a span per activity and child workflow it starts, and carry the
// trace context to them in headers. Only the traced bundle holds this module (worker/bundle.ts,
// `traced`); the plain bundle, the one workers use without tracing, is unchanged. Neither the
// spans nor the headers are commands the history checks, so both bundles replay the same histories
// (test/integration/worker-tracing-replay.test.ts). Queries and update validators are left untraced: the
// CLI polls progress, and each poll would be a trace of its own beside the run's.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type {
  Next,
  QueryInput,
  UpdateInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
} from '@temporalio/workflow';

class RunInboundInterceptor extends OpenTelemetryInboundInterceptor {
  override handleQuery(
    input: QueryInput,
    next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>,
  ): Promise<unknown> {
    return next(input);
  }

  override validateUpdate(
    input: UpdateInput,
    next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>,
  ): void {
    next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new RunInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
