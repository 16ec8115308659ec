// How a failed step is described: a stable type and a message. Temporal wraps activity and child
// failures; this digs out the cause that says what went wrong.
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  TemporalFailure,
} from '@temporalio/workflow';
import type { StepFailureCode } from '../contract/failure-codes';

/** How a cancelled run and its interrupted step are described. */
export const RUN_CANCELLED = {
  type: 'CANCELLED' satisfies StepFailureCode,
  message: 'the run was cancelled',
} as const;

/** The failure that makes a cancellation take effect where the interpreter decides it does. */
export function runCancelled(): CancelledFailure {
  return new CancelledFailure(RUN_CANCELLED.message);
}

/** Thrown by the interpreter when a step fails (after its retries). */
export class StepFailed extends Error {
  constructor(
    readonly stepKey: string,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'StepFailed';
  }
}

export interface FailureSummary {
  type: string;
  message: string;
}

/** The innermost meaningful cause of a failure, as a type code and a message. */
export function summariseFailure(error: unknown): FailureSummary {
  let current: unknown = error;
  while (current instanceof ActivityFailure || current instanceof ChildWorkflowFailure) {
    if (current.cause === undefined) break;
    current = current.cause;
  }
  if (current instanceof StepFailed) return { type: current.type, message: current.message };
  if (current instanceof ApplicationFailure)
    return { type: current.type ?? 'APPLICATION_FAILURE', message: current.message };
  if (current instanceof TemporalFailure)
    return {
      type: current.name.replace(/Failure$/, '').toUpperCase() + '_FAILURE',
      message: current.message,
    };
  const code = (current as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && current instanceof Error) return { type: code, message: current.message };
  if (current instanceof Error) return { type: 'STEP_ERROR', message: current.message };
  return { type: 'STEP_ERROR', message: String(current) };
}
