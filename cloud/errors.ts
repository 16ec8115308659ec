// One error type for every Cloud API failure, with a stable string code. Code elsewhere matches on
// `code`, never on the class. Messages never carry credentials or passwords.
import { z } from 'zod';

export const CloudApiErrorCode = z.enum([
  'CLOUD_API_BAD_REQUEST',
  'CLOUD_API_UNAUTHORIZED',
  'CLOUD_API_FORBIDDEN',
  'CLOUD_API_NOT_FOUND',
  'CLOUD_API_CONFLICT',
  'CLOUD_API_RATE_LIMITED',
  'CLOUD_API_SERVER_ERROR',
  'CLOUD_API_TIMEOUT',
  'CLOUD_API_NETWORK',
  'CLOUD_API_INVALID_RESPONSE',
  'CLOUD_API_CONFIG',
]);
export type CloudApiErrorCode = z.infer<typeof CloudApiErrorCode>;

/**
 * Whether a failure with this code may succeed when tried again. 409 means "busy" in this API
 * (a change in progress), so it is worth retrying with backoff. A bad configuration is not.
 */
export const RETRYABLE: Readonly<Record<CloudApiErrorCode, boolean>> = {
  CLOUD_API_BAD_REQUEST: false,
  CLOUD_API_UNAUTHORIZED: false,
  CLOUD_API_FORBIDDEN: false,
  CLOUD_API_NOT_FOUND: false,
  CLOUD_API_CONFLICT: true,
  CLOUD_API_RATE_LIMITED: true,
  CLOUD_API_SERVER_ERROR: true,
  CLOUD_API_TIMEOUT: true,
  CLOUD_API_NETWORK: true,
  CLOUD_API_INVALID_RESPONSE: false,
  CLOUD_API_CONFIG: false,
};

export interface CloudApiErrorDetails {
  code: CloudApiErrorCode;
  message: string;
  /** The action, e.g. `service.create`, when the error came from an operation. */
  action?: string | undefined;
  /** HTTP status, when an answer arrived. */
  status?: number | undefined;
  /** The API's own error code from the body (`INVALID_REQUEST`, `CONFLICT`…), when given. */
  apiCode?: string | undefined;
  /** The body's `details`, the actionable part of the error, when given (also in `message`). */
  apiDetails?: string | undefined;
  /** For 429: how long the server asked us to wait, in milliseconds. */
  retryAfterMs?: number | undefined;
}

export class CloudApiError extends Error {
  readonly code: CloudApiErrorCode;
  readonly retryable: boolean;
  readonly action: string | undefined;
  readonly status: number | undefined;
  readonly apiCode: string | undefined;
  readonly apiDetails: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(details: CloudApiErrorDetails, options?: { cause?: unknown }) {
    super(details.message, options);
    this.name = 'CloudApiError';
    this.code = details.code;
    this.retryable = RETRYABLE[details.code];
    this.action = details.action;
    this.status = details.status;
    this.apiCode = details.apiCode;
    this.apiDetails = details.apiDetails;
    this.retryAfterMs = details.retryAfterMs;
  }

  toJSON(): CloudApiErrorDetails & { retryable: boolean } {
    return {
      code: this.code,
      message: this.message,
      action: this.action,
      status: this.status,
      apiCode: this.apiCode,
      apiDetails: this.apiDetails,
      retryAfterMs: this.retryAfterMs,
      retryable: this.retryable,
    };
  }
}

/** True for any value carrying a Cloud API error code, whichever realm or copy of the class made it. */
export function isCloudApiError(value: unknown): value is CloudApiError {
  return (
    typeof value === 'object' &&
    value !== null &&
    CloudApiErrorCode.safeParse((value as { code?: unknown }).code).success
  );
}

/** The error code an HTTP status maps to (for statuses that are errors). */
export function codeForStatus(status: number): CloudApiErrorCode {
  if (status === 400 || status === 422) return 'CLOUD_API_BAD_REQUEST';
  if (status === 401) return 'CLOUD_API_UNAUTHORIZED';
  if (status === 403) return 'CLOUD_API_FORBIDDEN';
  if (status === 404) return 'CLOUD_API_NOT_FOUND';
  // The server gave up waiting for the request (the vendor's client treats it as a timeout).
  if (status === 408) return 'CLOUD_API_TIMEOUT';
  if (status === 409) return 'CLOUD_API_CONFLICT';
  if (status === 429) return 'CLOUD_API_RATE_LIMITED';
  if (status >= 500) return 'CLOUD_API_SERVER_ERROR';
  return 'CLOUD_API_INVALID_RESPONSE';
}

/**
 * Parses a `Retry-After` header: delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Returns milliseconds, never negative; `undefined` when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^[0-9]+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
