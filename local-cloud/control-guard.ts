// What keeps the control API (/__sim) from being driven by anyone but the process that started the
// local cloud: a token generated at start (or set in the config file) that every request must carry
// as `Authorization: Bearer <token>`, no request a web browser sent (an `Origin` or `Sec-Fetch-Site`
// header), no Host name a DNS-rebinding page could use, and JSON as the only body type, so a
// cross-site "simple" POST (text/plain, form data) is refused before anything runs.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { LocalCloudHttpError, forbidden } from './errors';

/** 256 random bits, URL-safe. */
export function generateControlToken(): string {
  return randomBytes(32).toString('base64url');
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Whether the Host header names the server in a way no other site can: an IP literal or
 * `localhost`. A DNS name could be rebound by a web page to 127.0.0.1, making its requests
 * same-origin.
 */
export function isSafeHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? ''))
    .toLowerCase()
    .replace(/\.$/, '');
  return (
    name === 'localhost' || name.endsWith('.localhost') || IPV4.test(name) || /^\[[0-9a-f:.]+\]$/.test(name)
  );
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** An `onRequest` hook for the control routes: throws the refusal, in the order of the checks. */
export function controlGuard(token: string) {
  const expected = digest(token);
  return async (request: FastifyRequest): Promise<void> => {
    if (request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined) {
      throw forbidden('the control API does not answer requests sent by a web browser (Origin header)');
    }
    if (!isSafeHost(request.headers.host)) {
      throw forbidden('the control API answers only with an IP address or localhost in the Host header');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    // Constant-time: the comparison's duration does not tell how much of a guess was right.
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new LocalCloudHttpError(
        401,
        'UNAUTHORIZED',
        'the control API needs `Authorization: Bearer <controlToken>` (the token is in the first line the local cloud prints)',
        { 'www-authenticate': 'Bearer realm="local-cloud-control"' },
      );
    }
    if (hasBody(request) && !isJson(request.headers['content-type'])) {
      throw new LocalCloudHttpError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'control API request bodies must be JSON (Content-Type: application/json)',
      );
    }
  };
}
