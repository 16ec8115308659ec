// CLI errors as data: a stable code, a message saying what went wrong, a hint saying what to do,
// and the exit code. Only cli/main.ts turns them into output and an exit.
import type { StackError } from '../stack/stack-error';

/** Documented exit codes (docs/cli.md, `tideline --help`). */
export const EXIT = {
  OK: 0,
  /** The run (or the thing asked for) failed: a step failed, a run was cancelled or rejected. */
  FAILED: 1,
  /** Bad usage: unknown flag, missing argument, invalid runbook or input. */
  USAGE: 2,
  /** Cannot connect to Temporal or the Cloud API. */
  UNAVAILABLE: 3,
  /** Something asked for does not exist (run id, schedule). */
  NOT_FOUND: 4,
  /** The run is held at a failed step (`onFailure: hold`): retry, skip or roll it back. */
  HELD: 5,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export type CliErrorCode =
  | 'CLI_USAGE'
  | 'RUNBOOK_INVALID'
  | 'RUNBOOK_NOT_FOUND'
  | 'RUNBOOK_UNREADABLE'
  | 'RUNBOOK_INPUT_INVALID'
  | 'TEMPORAL_UNAVAILABLE'
  | 'CLOUD_UNAVAILABLE'
  | 'RUN_NOT_FOUND'
  | 'SCHEDULE_NOT_FOUND'
  | 'RUN_FAILED'
  | 'CLI_INTERNAL'
  | 'CLUSTER_BUILD_FAILED'
  | 'POSTGRES_UNAVAILABLE'
  | 'CLUSTER_START_FAILED'
  | 'CLUSTER_NOT_FOUND'
  | 'SEARCH_ATTRIBUTES_REFUSED'
  | 'PATCH_STILL_NEEDED'
  | 'FILE_EXISTS'
  | 'APPROVAL_KEY_INVALID';

const EXIT_FOR: Record<CliErrorCode, ExitCode> = {
  CLI_USAGE: EXIT.USAGE,
  RUNBOOK_INVALID: EXIT.USAGE,
  RUNBOOK_NOT_FOUND: EXIT.USAGE,
  RUNBOOK_UNREADABLE: EXIT.USAGE,
  RUNBOOK_INPUT_INVALID: EXIT.USAGE,
  TEMPORAL_UNAVAILABLE: EXIT.UNAVAILABLE,
  CLOUD_UNAVAILABLE: EXIT.UNAVAILABLE,
  RUN_NOT_FOUND: EXIT.NOT_FOUND,
  SCHEDULE_NOT_FOUND: EXIT.NOT_FOUND,
  RUN_FAILED: EXIT.FAILED,
  CLI_INTERNAL: EXIT.FAILED,
  CLUSTER_BUILD_FAILED: EXIT.UNAVAILABLE,
  POSTGRES_UNAVAILABLE: EXIT.UNAVAILABLE,
  CLUSTER_START_FAILED: EXIT.UNAVAILABLE,
  CLUSTER_NOT_FOUND: EXIT.NOT_FOUND,
  SEARCH_ATTRIBUTES_REFUSED: EXIT.FAILED,
  PATCH_STILL_NEEDED: EXIT.FAILED,
  /** A file a command would write is there already (`init` without --force). */
  FILE_EXISTS: EXIT.USAGE,
  /** An approval key file (`--key`, ~/.tideline/approval-keys/) that cannot be read or used. */
  APPROVAL_KEY_INVALID: EXIT.USAGE,
};

export class CliError extends Error {
  readonly exitCode: ExitCode;
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly hint?: string,
    /** Extra lines printed under the message (e.g. every problem of a runbook). */
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
    this.exitCode = EXIT_FOR[code];
  }
}

export function isCliError(value: unknown): value is CliError {
  return value instanceof CliError;
}

/** A stack's or the cluster's failure as the CLI reports it (the same code, message and hint). */
export function cliErrorOf(error: StackError): CliError {
  return new CliError(error.code, error.message, error.hint);
}
