// One error type for the worker's own failures (configuration, keys, payload encryption), with a
// stable string code. Callers match on `code`. Messages never carry keys or secrets.
import { z } from 'zod';

export const WorkerErrorCode = z.enum([
  /** The worker or cloud configuration is invalid or incomplete. */
  'TIDELINE_CONFIG_INVALID',
  /** An encryption key (from the environment or a key file) is malformed. */
  'TIDELINE_ENCRYPTION_KEY_INVALID',
  /** The configured key file does not exist or cannot be read or parsed. */
  'TIDELINE_KEY_FILE_INVALID',
  /** A payload names an encryption key id this process does not have. */
  'TIDELINE_ENCRYPTION_KEY_UNKNOWN',
  /** A payload failed authentication: tampered, truncated, or encrypted with another key. */
  'TIDELINE_PAYLOAD_DECRYPT_FAILED',
  /** The configured Temporal namespace does not exist on the server. */
  'TIDELINE_NAMESPACE_NOT_FOUND',
  /** The namespace lacks tideline's search attributes (or has one with another type). */
  'TIDELINE_SEARCH_ATTRIBUTES_MISSING',
]);
export type WorkerErrorCode = z.infer<typeof WorkerErrorCode>;

export class WorkerError extends Error {
  readonly code: WorkerErrorCode;

  constructor(code: WorkerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WorkerError';
    this.code = code;
  }
}

/** True when `error` carries the given worker error code (matched by code, not by class). */
export function hasWorkerErrorCode(error: unknown, code: WorkerErrorCode): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
