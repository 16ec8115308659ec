// The remote codec server for Temporal's Web UI and CLI: `POST /codec/decode` and `POST /codec/encode`
// run payloads through the worker's own EncryptionCodec (same key ring), so the UI shows plaintext
// while Temporal keeps ciphertext. What guards it:
//   - a token, compared in constant time, from `Authorization: Bearer <token>` or from the cookie
//     that `<endpoint>/login` sets (codec-login.ts, for a UI without its own login); 401 otherwise;
//   - or, for a UI that can send neither (the dev server's UI), a capability endpoint: a secret in
//     the path (`/codec/t/<secret>/decode`), compared in constant time, standing for the token;
//   - namespaces: `X-Namespace` must name a configured namespace; 403 otherwise (no plaintext for
//     anyone else's namespace);
//   - CORS only for the configured UI origins (a request from another origin gets no CORS headers,
//     and a POST carrying one is refused with 403);
//   - a request size limit (413), and payloads never reach a log or an error message.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EncryptionCodec } from './codec';
import { isHttps, loginPage, sessionCookie, tokenFromCookie, tokenFromForm } from './codec-login';
import { PayloadJsonError, payloadsFromJson, payloadsToJson } from './codec-payload-json';
import type { EncryptionKeyRing } from './encryption-keys';

export const CODEC_PATH = '/codec';
/** Where capability endpoints live: `/codec/t/<secret>`. */
const CAPABILITY_PREFIX = `${CODEC_PATH}/t/`;
const MIN_PATH_SECRET_LENGTH = 32;
const PATH_SECRET = new RegExp(`^[A-Za-z0-9_-]{${MIN_PATH_SECRET_LENGTH},}$`);
export const DEFAULT_CODEC_BODY_LIMIT = 4 * 1024 * 1024;
// What Temporal's UI sends: Authorization-Extras carries its id token when it forwards the access token.
const ALLOWED_HEADERS = 'Authorization, Authorization-Extras, Content-Type, X-Namespace';

export type CodecErrorCode =
  | 'CODEC_NOT_FOUND'
  | 'CODEC_METHOD_NOT_ALLOWED'
  | 'CODEC_UNAUTHORIZED'
  | 'CODEC_ORIGIN_FORBIDDEN'
  | 'CODEC_NAMESPACE_FORBIDDEN'
  | 'CODEC_BODY_TOO_LARGE'
  | 'CODEC_BAD_REQUEST'
  | 'CODEC_PAYLOAD_UNREADABLE'
  | 'CODEC_INTERNAL';

export interface CodecServerOptions {
  keyRing: EncryptionKeyRing;
  /** The bearer token every request must carry (there is no mode without one). */
  token: string;
  /**
   * A secret (at least 32 characters) that, as the path segment of `<endpoint>/t/<secret>`, stands
   * for the token: for a Web UI that can send neither a header nor a cookie. Whoever holds that
   * endpoint can decode, so it is handed over like the token (never on a command line).
   */
  pathSecret?: string;
  /** Web UI origins (`http://127.0.0.1:8233`) that get CORS answers. */
  allowedOrigins: readonly string[];
  /** The namespaces whose payloads this server decodes and encodes (at least one). */
  namespaces: readonly string[];
  /** Largest request body in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  host?: string;
  /** 0 = any free port. */
  port?: number;
}

export interface CodecServer {
  /** What the UI is given as its codec endpoint, e.g. `http://127.0.0.1:8081/codec`. */
  readonly endpoint: string;
  /**
   * With `pathSecret`: the endpoint that needs no token, `<endpoint>/t/<secret>` (the UI appends
   * `/decode` and `/encode`). A secret: whoever holds it can decode.
   */
  readonly capabilityEndpoint: string | undefined;
  readonly port: number;
  close(): Promise<void>;
}

class CodecHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: CodecErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

const sameToken = (token: string | undefined, expected: Buffer): boolean =>
  token !== undefined && timingSafeEqual(digest(token), expected);

function authorized(req: IncomingMessage, expected: Buffer): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  return sameToken(bearer, expected) || sameToken(tokenFromCookie(req), expected);
}

/** Reads the body up to `limit` bytes; past it, drains (up to 8× the limit, then cuts) and throws 413. */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = (): CodecHttpError =>
      new CodecHttpError(413, 'CODEC_BODY_TOO_LARGE', `the request body is larger than ${limit} bytes`);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > limit * 8) req.destroy();
    });
    req.on('end', () =>
      size > limit ? reject(tooLarge()) : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(tooLarge());
    });
  });
}

export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const host = options.host ?? '127.0.0.1';
  if (options.namespaces.length === 0) throw new Error('a codec server needs at least one namespace');
  if (options.pathSecret !== undefined && !PATH_SECRET.test(options.pathSecret)) {
    throw new Error(
      `a codec server's path secret must be at least ${MIN_PATH_SECRET_LENGTH} URL-safe characters (base64url)`,
    );
  }
  if (options.token.length === 0) throw new Error('a codec server needs a token');
  const expected = digest(options.token);
  const expectedPathSecret = options.pathSecret === undefined ? undefined : digest(options.pathSecret);
  const origins = new Set(options.allowedOrigins);
  const namespaces = new Set(options.namespaces);
  const limit = options.maxBodyBytes ?? DEFAULT_CODEC_BODY_LIMIT;
  const codec = new EncryptionCodec(options.keyRing);

  const corsHeaders = (req: IncomingMessage): Record<string, string> => {
    const origin = req.headers.origin;
    if (origin === undefined || !origins.has(origin)) return {};
    return {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Credentials': 'true',
      Vary: 'Origin',
    };
  };

  const send = (req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...corsHeaders(req),
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      ...(status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}),
      ...(req.complete ? {} : { Connection: 'close' }),
    });
    res.end(text);
  };

  const page = (res: ServerResponse, status: number, message: string, cookie?: string): void => {
    const html = loginPage(message);
    res.writeHead(status, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(html),
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
      ...(cookie !== undefined ? { 'Set-Cookie': cookie } : {}),
    });
    res.end(html);
  };

  /** GET: the sign-in form; POST (form field `token`): sets the session cookie when the token is right. */
  const login = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'GET')
      return page(res, 200, 'Paste the codec server token to let this browser decode payloads.');
    if (req.method !== 'POST') throw new CodecHttpError(405, 'CODEC_METHOD_NOT_ALLOWED', 'use GET or POST');
    const token = tokenFromForm(await readBody(req, 4096));
    if (!sameToken(token, expected)) return page(res, 401, 'That token is not right. Try again.');
    const cookie = sessionCookie(token as string, CODEC_PATH, isHttps(req));
    return page(res, 200, 'Signed in: the Web UI can decode payloads in this browser now.', cookie);
  };

  /**
   * The operation a path names, and the path secret it carries: `/codec/decode`, or
   * `/codec/t/<secret>/decode` on a server with a path secret (any secret: it is checked later, so a
   * wrong one is a 401 like a wrong token, not a 404).
   */
  const route = (path: string): { operation: 'decode' | 'encode'; pathSecret?: string } | null => {
    if (!path.startsWith(`${CODEC_PATH}/`)) return null;
    let rest = path.slice(CODEC_PATH.length);
    let pathSecret: string | undefined;
    if (expectedPathSecret !== undefined && path.startsWith(CAPABILITY_PREFIX)) {
      const slash = path.indexOf('/', CAPABILITY_PREFIX.length);
      if (slash < 0) return null;
      pathSecret = path.slice(CAPABILITY_PREFIX.length, slash);
      rest = path.slice(slash);
    }
    const operation = rest === '/decode' ? 'decode' : rest === '/encode' ? 'encode' : null;
    if (operation === null) return null;
    return pathSecret === undefined ? { operation } : { operation, pathSecret };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path === `${CODEC_PATH}/login`) return login(req, res);
    const routed = route(path);
    if (routed === null) throw new CodecHttpError(404, 'CODEC_NOT_FOUND', 'not found');
    const { operation } = routed;
    const origin = req.headers.origin;
    const allowedOrigin = origin === undefined || origins.has(origin);
    if (req.method === 'OPTIONS') {
      // The preflight carries no credentials; only the configured UI origins get an answer they can use.
      if (!allowedOrigin || origin === undefined) {
        res.writeHead(403, { 'Content-Length': 0 }).end();
        return;
      }
      res
        .writeHead(204, {
          ...corsHeaders(req),
          'Access-Control-Allow-Methods': 'POST, OPTIONS',
          'Access-Control-Allow-Headers': ALLOWED_HEADERS,
          'Access-Control-Max-Age': '600',
          'Content-Length': 0,
        })
        .end();
      return;
    }
    if (req.method !== 'POST') {
      throw new CodecHttpError(405, 'CODEC_METHOD_NOT_ALLOWED', `use POST ${CODEC_PATH}/${operation}`);
    }
    // A capability path is the whole credential: a wrong secret is refused even with a right token.
    const allowed =
      routed.pathSecret !== undefined && expectedPathSecret !== undefined
        ? sameToken(routed.pathSecret, expectedPathSecret)
        : authorized(req, expected);
    if (!allowed) {
      throw new CodecHttpError(
        401,
        'CODEC_UNAUTHORIZED',
        `send Authorization: Bearer <codec server token>, or sign in at ${CODEC_PATH}/login`,
      );
    }
    if (!allowedOrigin) {
      throw new CodecHttpError(403, 'CODEC_ORIGIN_FORBIDDEN', 'this origin is not an allowed Web UI origin');
    }
    const namespaceHeader = req.headers['x-namespace'];
    const namespace = typeof namespaceHeader === 'string' ? namespaceHeader.trim() : '';
    if (!namespaces.has(namespace)) {
      throw new CodecHttpError(
        403,
        'CODEC_NAMESPACE_FORBIDDEN',
        namespace === '' ? 'send the X-Namespace header' : 'this codec server does not serve that namespace',
      );
    }
    const declared = Number(req.headers['content-length'] ?? '0');
    if (Number.isFinite(declared) && declared > limit) {
      throw new CodecHttpError(413, 'CODEC_BODY_TOO_LARGE', `the request body is larger than ${limit} bytes`);
    }
    const body = await readBody(req, limit);
    const payloads = payloadsFromJson(body);
    let result;
    try {
      result = operation === 'decode' ? await codec.decode(payloads) : await codec.encode(payloads);
    } catch (error) {
      // WorkerError messages name key ids, never payload content or key bytes.
      const code = (error as { code?: unknown }).code;
      const message = error instanceof Error ? error.message : 'the payload could not be processed';
      throw new CodecHttpError(
        422,
        'CODEC_PAYLOAD_UNREADABLE',
        typeof code === 'string' ? `${code}: ${message}` : message,
      );
    }
    send(req, res, 200, payloadsToJson(result));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const known =
        error instanceof CodecHttpError
          ? error
          : error instanceof PayloadJsonError
            ? new CodecHttpError(400, error.code, error.message)
            : new CodecHttpError(500, 'CODEC_INTERNAL', 'the codec server failed');
      if (!req.complete) req.resume();
      send(req, res, known.status, { error: { code: known.code, message: known.message } });
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  const endpoint = `http://${urlHost}:${port}${CODEC_PATH}`;
  return {
    endpoint,
    capabilityEndpoint: options.pathSecret === undefined ? undefined : `${endpoint}/t/${options.pathSecret}`,
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
