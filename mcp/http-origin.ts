// Which requests the Streamable HTTP endpoint answers, against DNS rebinding (the MCP
// specification's Streamable HTTP security warning): a page a browser loaded from elsewhere can
// reach 127.0.0.1 under a name of its own, so its requests carry that name as Host, and its Origin.
// A request is answered only with a Host the server goes by (127.0.0.1:PORT, localhost:PORT, or a
// name the operator configured), and, when it carries an Origin, one of the server's own loopback
// origins or one the operator allowed. A request without an Origin is not a browser's: allowed.
// The SDK's own options for this (allowedHosts, allowedOrigins) are deprecated and only checked
// inside a transport, after a session's server was made; this check runs before anything.
import type { IncomingHttpHeaders } from 'node:http';

/** The names the server goes by on its loopback address. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost'] as const;

export interface OriginPolicy {
  /** The Host values answered, lower case, with their port (`127.0.0.1:8808`). */
  hosts: ReadonlySet<string>;
  /** The Origin values answered, as URL.origin writes them. */
  origins: ReadonlySet<string>;
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

/** What is wrong with a configured host name (`NAME` or `NAME:PORT`), or undefined. */
export function allowedHostProblem(text: string): string | undefined {
  const [name = '', port, ...rest] = text.split(':');
  if (rest.length > 0 || !HOST_NAME.test(name) || (port !== undefined && !/^\d{1,5}$/.test(port)))
    return `"${text}" is not a host name (NAME or NAME:PORT, e.g. mcp.internal or mcp.internal:8808)`;
  return undefined;
}

/** What is wrong with a configured origin, or undefined: it must be exactly SCHEME://HOST[:PORT]. */
export function allowedOriginProblem(text: string): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !['http:', 'https:'].includes(url.protocol) || url.origin !== text.toLowerCase())
    return `"${text}" is not an origin (http:// or https://, a host and an optional port, no path: e.g. http://localhost:6274)`;
  return undefined;
}

/**
 * The policy of a server listening on loopback `port`; `hosts` and `origins` are the operator's
 * additions, already checked (allowedHostProblem, allowedOriginProblem). A host named without a
 * port is answered on the server's port.
 */
export function originPolicy(
  port: number,
  configured: { hosts?: readonly string[]; origins?: readonly string[] } = {},
): OriginPolicy {
  const withPort = (host: string) => (host.includes(':') ? host : `${host}:${port}`).toLowerCase();
  return {
    hosts: new Set([...LOOPBACK_NAMES, ...(configured.hosts ?? [])].map(withPort)),
    origins: new Set([
      ...LOOPBACK_NAMES.map((name) => `http://${name}:${port}`),
      ...(configured.origins ?? []).map((origin) => new URL(origin).origin),
    ]),
  };
}

/** Why the request is refused (its Host or Origin is not the server's), or undefined. */
export function foreignRequest(headers: IncomingHttpHeaders, policy: OriginPolicy): string | undefined {
  const given = headers.host?.toLowerCase();
  // Without a port, the Host names HTTP's default one.
  const host = given === undefined || given.includes(':') ? given : `${given}:80`;
  if (host === undefined || !policy.hosts.has(host))
    return `the Host header ${host === undefined ? 'is missing' : `"${host}"`} is not this server's (${[...policy.hosts].join(', ')}); tideline mcp --allow-host adds a name`;
  const origin = headers.origin;
  if (origin !== undefined && !policy.origins.has(origin.toLowerCase()))
    return `requests from the origin "${origin}" are not allowed (allowed: ${[...policy.origins].join(', ')}); tideline mcp --allow-origin adds one`;
  return undefined;
}
