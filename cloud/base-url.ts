// Checking the Cloud API base URL: HTTPS only, except plain HTTP to this machine when the caller
// explicitly allows it (the local cloud in tests and rehearsals).
import { isIP } from 'node:net';
import { CloudApiError } from './errors';

export interface ParsedBaseUrl {
  /** `https://host:port`, what the connection pool is keyed on. */
  origin: string;
  /** The path prefix without a trailing slash, e.g. `/public/api/v1` (empty for the root). */
  basePath: string;
  /** The normalised base URL, safe to print (it never holds credentials). */
  href: string;
}

function configError(message: string): CloudApiError {
  return new CloudApiError({ code: 'CLOUD_API_CONFIG', message });
}

/** True for `localhost`, `127.0.0.0/8` and `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

export function parseBaseUrl(raw: string, allowInsecureLoopback: boolean): ParsedBaseUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The raw text is not echoed: a mistyped URL may carry credentials.
    throw configError(
      'the Cloud API base URL is not a valid absolute URL (expected https://host/public/api/v1)',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw configError(
      'the Cloud API base URL must not contain credentials; give accessKey and secretKey instead',
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw configError(
      `the Cloud API base URL must not have a query or fragment: ${url.origin}${url.pathname}`,
    );
  }
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname)) {
      throw configError(
        `the Cloud API base URL must use https: ${url.origin} is plain http to a non-loopback host, which would send the secret key in clear text`,
      );
    }
    if (!allowInsecureLoopback) {
      throw configError(
        `the Cloud API base URL ${url.origin} is plain http; this is only allowed for a loopback host with allowInsecureLoopback: true`,
      );
    }
  } else if (url.protocol !== 'https:') {
    throw configError(`the Cloud API base URL must use https, not ${url.protocol.replace(/:$/, '')}`);
  }
  const basePath = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, basePath, href: `${url.origin}${basePath}` };
}
