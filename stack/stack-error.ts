// Why a local stack or the native cluster could not start or answer, as data: a stable code, a
// message saying what went wrong and a hint saying what to do. Commands print them (the CLI maps
// each code to its exit code); benchmarks and tests match on the code.

export type StackErrorCode =
  | 'CLI_USAGE'
  | 'TEMPORAL_UNAVAILABLE'
  | 'CLUSTER_BUILD_FAILED'
  | 'POSTGRES_UNAVAILABLE'
  | 'CLUSTER_START_FAILED'
  | 'CLUSTER_NOT_FOUND';

export class StackError extends Error {
  constructor(
    readonly code: StackErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'StackError';
  }
}

export function isStackError(value: unknown): value is StackError {
  return value instanceof StackError;
}
