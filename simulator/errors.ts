// Errors the local cloud answers with: an HTTP status plus the API's `{code, message}` body.
// Handlers throw these; the HTTP layer turns them into responses.

export type ApiErrorCode =
  'INVALID_REQUEST' | 'UNAUTHORIZED' | 'NOT_FOUND' | 'CONFLICT' | 'RATE_LIMITED' | 'INTERNAL';

export class SimulatorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly apiCode: ApiErrorCode,
    message: string,
    /** Extra response headers, e.g. `WWW-Authenticate` on a 401. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'SimulatorHttpError';
  }
}

export const badRequest = (message: string) => new SimulatorHttpError(400, 'INVALID_REQUEST', message);
export const unauthorized = (message: string) =>
  new SimulatorHttpError(401, 'UNAUTHORIZED', message, { 'www-authenticate': 'Basic realm="local-cloud"' });
export const notFound = (message: string) => new SimulatorHttpError(404, 'NOT_FOUND', message);
export const conflict = (message: string) => new SimulatorHttpError(409, 'CONFLICT', message);

/** The API error code that goes with an HTTP status. */
export function apiCodeForStatus(status: number): ApiErrorCode {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status === 429) return 'RATE_LIMITED';
  if (status >= 500) return 'INTERNAL';
  return 'INVALID_REQUEST';
}
