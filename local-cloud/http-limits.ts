// How long and how large a request to the local cloud may be, and the `{code, message}` answers
// for what goes wrong before a route runs: errors Node's HTTP parser raises on the raw socket
// (431, 408, malformed requests) and the ones fastify raises outside its error handler (bad URL
// encoding, over-long path parameters) or inside it (413, 415, …).
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { apiCodeForStatus, type ApiErrorCode } from './errors';

export interface HttpLimits {
  /** All request headers must arrive within this (a connection that sends nothing is cut here too). */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this; time spent answering is not counted. */
  requestTimeoutMs: number;
  /** Largest request body. */
  bodyLimitBytes: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  bodyLimitBytes: 1024 * 1024,
};

/** Node's own limit on all request headers together (the default of `--max-http-header-size`). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Longest path parameter (an id); fastify's default, stated here so messages can name it. */
export const MAX_PARAM_LENGTH = 100;

export function resolveHttpLimits(overrides: Partial<HttpLimits> = {}): HttpLimits {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...overrides };
  // Node refuses a headers timeout above the request timeout.
  limits.headersTimeoutMs = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return limits;
}

export interface ErrorAnswer {
  status: number;
  code: ApiErrorCode;
  message: string;
}

function answer(status: number, message: string): ErrorAnswer {
  return { status, code: apiCodeForStatus(status), message };
}

/** What a fastify error (with its `FST_…` code and status) is answered with. */
export function fastifyErrorAnswer(
  error: { code?: unknown; statusCode?: unknown; message: string },
  limits: HttpLimits,
): ErrorAnswer {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return answer(400, 'the request path is not valid percent-encoded UTF-8');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return answer(414, `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return answer(413, `the request body is larger than ${limits.bodyLimitBytes} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return answer(415, 'unsupported Content-Type; send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return answer(400, 'the Content-Length header does not match the body');
    default:
      break;
  }
  const status =
    typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode <= 599
      ? error.statusCode
      : 500;
  // Anything unexpected is a 500 whose details stay inside the server.
  return answer(status, status < 500 ? error.message : 'internal error');
}

/** What an error of Node's HTTP parser (a `clientError`) is answered with. */
export function clientErrorAnswer(code: unknown, limits: HttpLimits): ErrorAnswer {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return answer(
      408,
      `the request did not arrive in time (headers within ${limits.headersTimeoutMs} ms, ` +
        `the whole request within ${limits.requestTimeoutMs} ms)`,
    );
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return answer(431, `the request line and headers are larger than ${MAX_HEADER_BYTES} bytes`);
  }
  if (code === 'HPE_INVALID_METHOD') return answer(400, 'unknown HTTP method');
  return answer(400, `malformed HTTP request${typeof code === 'string' ? ` (${code})` : ''}`);
}

/**
 * Answers a parser error on the raw socket, then closes it. Like Node's default, it writes only
 * when nothing was written on the connection yet, so it never lands in the middle of an answer.
 */
export function clientErrorHandler(limits: HttpLimits) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable && socket.bytesWritten === 0) {
      const { status, code, message } = clientErrorAnswer(error.code, limits);
      const body = JSON.stringify({ code, message });
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
