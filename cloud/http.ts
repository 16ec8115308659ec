// The HTTP transport of the Cloud API client: one keep-alive undici Agent, Basic or Bearer auth,
// a hard per-request deadline covering headers and body, caller cancellation, and transport
// failures turned into CLOUD_API_TIMEOUT / CLOUD_API_NETWORK. It knows nothing about operations.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { Agent } from 'undici';
import { CloudApiError } from './errors';
import { redact } from './redact';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Absolute path including the base path and query string, already encoded. */
  path: string;
  /** JSON text, when the operation sends a body. */
  body?: string | undefined;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The whole body, read within the deadline (empty string when there is none). */
  text: string;
}

export interface SendOptions {
  /** Used in error messages, e.g. `service.create`. */
  action: string;
  /** Deadline for the whole exchange: connect, headers and body. */
  timeoutMs: number;
  /** Caller cancellation; when it fires the call rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** Values to scrub from any message built here. */
  secrets: readonly string[];
}

/** HTTP Basic with the project's key pair, or `Bearer` with a token (a JWT) the API issued. */
export type HttpCredentials =
  { scheme: 'Basic'; accessKey: string; secretKey: string } | { scheme: 'Bearer'; token: string };

export interface HttpTransportOptions {
  /** `https://host:port` (or loopback http when allowed). */
  origin: string;
  credentials: HttpCredentials;
}

/** Raised internally when the deadline fires, so it is told apart from a caller's abort. */
class DeadlineExceeded extends Error {}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** undici codes that mean our own request was malformed: a bug, not a network condition. */
const PROGRAMMING_ERROR_CODE = /^UND_ERR_(INVALID|NOT_SUPPORTED)/;

let cachedUserAgent: string | undefined;

/** `tideline/<package version> (node <node version>)`. */
export function userAgent(): string {
  cachedUserAgent ??= `tideline/${packageVersion()} (node ${process.versions.node})`;
  return cachedUserAgent;
}

/** The version in tideline's package.json, found by walking up from this file (src or dist). */
function packageVersion(): string {
  let dir = __dirname;
  for (let depth = 0; depth < 5; depth++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'tideline' && typeof pkg.version === 'string') return pkg.version;
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}

export class HttpTransport {
  readonly #agent: Agent;
  readonly #origin: string;
  readonly #authorization: string;

  constructor(options: HttpTransportOptions) {
    this.#origin = options.origin;
    const { credentials } = options;
    this.#authorization =
      credentials.scheme === 'Basic'
        ? `Basic ${Buffer.from(`${credentials.accessKey}:${credentials.secretKey}`).toString('base64')}`
        : `Bearer ${credentials.token}`;
    // One Agent for the client's life: connections are kept alive and reused between calls.
    this.#agent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
  }

  /**
   * The Authorization header value after its scheme (the base64 of the key pair, or the bearer
   * token itself), so callers can scrub it from messages.
   */
  get authorizationToken(): string {
    return this.#authorization.slice(this.#authorization.indexOf(' ') + 1);
  }

  async send(request: HttpRequest, options: SendOptions): Promise<HttpAnswer> {
    const { signal: callerSignal, timeoutMs } = options;
    callerSignal?.throwIfAborted();
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new DeadlineExceeded()), timeoutMs);
    const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const headers: Record<string, string> = {
        authorization: this.#authorization,
        'user-agent': userAgent(),
        accept: 'application/json',
      };
      if (request.body !== undefined) headers['content-type'] = 'application/json';
      const answer = await this.#agent.request({
        origin: this.#origin,
        path: request.path,
        method: request.method,
        headers,
        body: request.body,
        signal: controller.signal,
        // Backstops only: the deadline above fires first and covers the whole exchange.
        headersTimeout: timeoutMs + 1_000,
        bodyTimeout: timeoutMs + 1_000,
      });
      const text = await answer.body.text();
      // undici frees the connection a moment after the body ends; yielding once lets the next
      // call from the same caller reuse it instead of opening a second one.
      await setImmediate();
      return { status: answer.statusCode, headers: answer.headers, text };
    } catch (error) {
      if (callerSignal?.aborted && !(controller.signal.reason instanceof DeadlineExceeded)) {
        throw callerSignal.reason;
      }
      throw this.#transportError(
        error,
        request,
        options,
        controller.signal.reason instanceof DeadlineExceeded,
      );
    } finally {
      clearTimeout(deadline);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  #transportError(
    error: unknown,
    request: HttpRequest,
    options: SendOptions,
    deadlineFired: boolean,
  ): unknown {
    const where = `${request.method} ${request.path}`;
    const scrub = (text: string): string => redact(text, [...options.secrets, this.authorizationToken]);
    const code = errorCode(error);
    if (deadlineFired || (code !== undefined && TIMEOUT_CODES.has(code))) {
      return new CloudApiError(
        {
          code: 'CLOUD_API_TIMEOUT',
          action: options.action,
          message: scrub(`${options.action}: no complete answer within ${options.timeoutMs} ms (${where})`),
        },
        { cause: deadlineFired ? undefined : error },
      );
    }
    if (code === undefined || PROGRAMMING_ERROR_CODE.test(code)) return error;
    const detail = error instanceof Error ? error.message : String(error);
    return new CloudApiError(
      {
        code: 'CLOUD_API_NETWORK',
        action: options.action,
        message: scrub(`${options.action}: network error ${code} (${where}): ${detail}`),
      },
      { cause: error },
    );
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
