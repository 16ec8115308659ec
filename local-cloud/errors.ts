// Errors the local cloud answers with: an HTTP status plus the API's `{code, message}` body, and
// `details` (the actionable part, as the real API sends it) when there is more to say. Handlers
// throw these; the HTTP layer turns them into responses.

export type ApiErrorCode =
  | 'INVALID_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TIMEOUT'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'URI_TOO_LONG'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL';

export class LocalCloudHttpError extends Error {
  constructor(
    readonly status: number,
    readonly apiCode: ApiErrorCode,
    message: string,
    /** Extra response headers, e.g. `WWW-Authenticate` on a 401. */
    readonly headers: Readonly<Record<string, string>> = {},
    /** The body's `details`, when given. */
    readonly details?: string,
  ) {
    super(message);
    this.name = 'LocalCloudHttpError';
  }
}

export const badRequest = (message: string) => new LocalCloudHttpError(400, 'INVALID_REQUEST', message);
export const unauthorized = (message: string, details?: string) =>
  new LocalCloudHttpError(
    401,
    'UNAUTHORIZED',
    message,
    { 'www-authenticate': 'Basic realm="local-cloud"' },
    details,
  );
export const forbidden = (message: string) => new LocalCloudHttpError(403, 'FORBIDDEN', message);
export const notFound = (message: string) => new LocalCloudHttpError(404, 'NOT_FOUND', message);
export const conflict = (message: string) => new LocalCloudHttpError(409, 'CONFLICT', message);

const CODE_BY_STATUS: ReadonlyMap<number, ApiErrorCode> = new Map<number, ApiErrorCode>([
  [401, 'UNAUTHORIZED'],
  [403, 'FORBIDDEN'],
  [404, 'NOT_FOUND'],
  [405, 'METHOD_NOT_ALLOWED'],
  [408, 'REQUEST_TIMEOUT'],
  [409, 'CONFLICT'],
  [413, 'PAYLOAD_TOO_LARGE'],
  [414, 'URI_TOO_LONG'],
  [415, 'UNSUPPORTED_MEDIA_TYPE'],
  [429, 'RATE_LIMITED'],
  [431, 'HEADERS_TOO_LARGE'],
]);

/** The API error code that goes with an HTTP status. */
export function apiCodeForStatus(status: number): ApiErrorCode {
  if (status >= 500) return 'INTERNAL';
  return CODE_BY_STATUS.get(status) ?? 'INVALID_REQUEST';
}
