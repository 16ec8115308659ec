// Every failure code a tideline run can report: the `type` of the Temporal failures activities and
// workflows raise, and of a step's or a run's recorded error. Retry policies, the interpreter and
// the CLI match on these codes, never on messages. Types and plain data only: sandbox-safe.
import type { CloudApiErrorCode } from '../cloud/errors';

/** Raised by activities themselves (not by the API); never retried. */
export const ACTIVITY_FAILURE_CODES = [
  'RESOURCE_NAME_TAKEN',
  'WAIT_TIMEOUT',
  'WAIT_FAILED_CONDITION',
  /** A watch's `failIf` held during its bake period. */
  'WATCH_FAILED',
  'EXPRESSION_ERROR',
  'ACTIVITY_INPUT_INVALID',
] as const;
export type ActivityFailureCode = (typeof ACTIVITY_FAILURE_CODES)[number];

/** An unexpected error in an activity (a bug or environment trouble): retried by the policy. */
export const INTERNAL_FAILURE = 'TIDELINE_INTERNAL';

/** Raised by the interpreter for a step that failed on its own terms. */
export const STEP_FAILURE_CODES = [
  'STEP_INPUT_INVALID',
  'ASSERTION_FAILED',
  'RUNBOOK_FAILED_STEP',
  'APPROVAL_REJECTED',
  'STEP_TIMEOUT',
  'CANCELLED',
  /** A foreach's items failed more often than its `maxErrors` allows (the message reports them). */
  'FOREACH_MAX_ERRORS',
  /** An approval step that refuses self-approval, in a run whose start no registered key signed. */
  'APPROVAL_START_UNVERIFIED',
  /** The worker refused the run at its start (contract/admission-messages.ts). */
  'RUNBOOK_NOT_ALLOWED',
  /** A policy rule denies the run or the step. */
  'POLICY_DENIED',
  /** A change window is closed and its rule refuses rather than waits. */
  'CHANGE_WINDOW_CLOSED',
] as const;
export type StepFailureCode = (typeof STEP_FAILURE_CODES)[number];

/** What a step's failure is summarised as when no code of the lists here says more. */
export const FALLBACK_FAILURE_CODES = ['APPLICATION_FAILURE', 'STEP_ERROR'] as const;
/** A Temporal failure without a tideline cause, named after its class (`TIMEOUT_FAILURE`…). */
export type TemporalFailureCode = `${Uppercase<string>}_FAILURE`;

/** Raised by the runbook workflow for the run as a whole. */
export const RUN_FAILURE_CODES = [
  'RUNBOOK_FAILED',
  'RUNBOOK_FORMAT_UNSUPPORTED',
  'RUNBOOK_INPUT_INVALID',
] as const;
export type RunFailureCode = (typeof RUN_FAILURE_CODES)[number];

/** The closed union of codes tideline raises (Cloud API codes come from cloud/errors.ts). */
export type FailureCode =
  | CloudApiErrorCode
  | ActivityFailureCode
  | typeof INTERNAL_FAILURE
  | StepFailureCode
  | (typeof FALLBACK_FAILURE_CODES)[number]
  | RunFailureCode;
