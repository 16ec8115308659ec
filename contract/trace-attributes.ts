// Names of the span attributes and baggage entries tideline's traces carry, shared by the workflow
// code (run and step spans), the activities (Cloud API call spans) and the worker's span scrubber.
// Every value under these names is a name, a key, a code or a number: never an input, an answer,
// a header or a credential (docs/security.md).

/** The tracer tideline's own spans come from (the SDK's interceptors use their own). */
export const TIDELINE_TRACER = 'tideline';

export const TRACE_ATTRIBUTES = {
  /** The runbook's name, on the run's span, its step spans and (through baggage) its call spans. */
  runbook: 'tideline.runbook',
  /** The step's key in the run (`create`, `each[2].wait`, `create/undo.delete`). */
  step: 'tideline.step',
  /** The step's id in its definition, and its kind (`call`, `wait`, `sleep`…). */
  stepId: 'tideline.step.id',
  stepKind: 'tideline.step.kind',
  /** How the step ended: done, skipped, failed, or the failure's code for a failed step. */
  stepStatus: 'tideline.step.status',
  /** The step's key whose compensation this step is part of. */
  compensates: 'tideline.compensates',
  /** The Cloud API action, e.g. `service.get`. */
  operation: 'tideline.operation',
  /** The activity's attempt a call belongs to (1 for the first). */
  attempt: 'tideline.attempt',
  /** OpenTelemetry's semantic conventions for the HTTP exchange and its failure. */
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  urlTemplate: 'url.template',
  errorType: 'error.type',
} as const;

/** Baggage entries a step span sets, so the activities it schedules can label their call spans. */
export const TRACE_BAGGAGE = [TRACE_ATTRIBUTES.runbook, TRACE_ATTRIBUTES.step] as const;
