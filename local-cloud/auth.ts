// Authentication of the Cloud API (not of the control API, which has its own token): HTTP Basic
// (user = access key, password = secret key), or `Authorization: Bearer <token>` for a project
// configured with a `bearer_token`. The real API issues JWTs as bearer tokens; the local cloud
// does not verify signatures or claims: a token is an opaque string, valid when it equals one
// configured for a project. Credentials belong to one project. Secrets and tokens are compared in
// constant time and never echoed in answers.
import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthorized } from './errors';
import type { ProjectRecord } from './state';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

const BASIC = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

export class Authenticator {
  private readonly byAccessKey = new Map<string, { project: ProjectRecord; secretDigest: Buffer }>();
  private readonly tokens: { project: ProjectRecord; tokenDigest: Buffer }[] = [];

  constructor(projects: readonly ProjectRecord[]) {
    for (const project of projects) {
      this.byAccessKey.set(project.access_key, { project, secretDigest: digest(project.secret_key) });
      if (project.bearer_token !== undefined) {
        this.tokens.push({ project, tokenDigest: digest(project.bearer_token) });
      }
    }
  }

  /** The project of the credentials in an `Authorization` header; 401 when missing or wrong. */
  authenticate(header: string | undefined): ProjectRecord {
    const bearer = BEARER.exec(header ?? '');
    if (bearer) return this.byBearerToken(bearer[1]!);
    const match = BASIC.exec(header ?? '');
    if (!match) throw unauthorized('missing or malformed HTTP Basic credentials');
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw unauthorized('missing or malformed HTTP Basic credentials');
    const entry = this.byAccessKey.get(decoded.slice(0, colon));
    const offered = digest(decoded.slice(colon + 1));
    // Compare even for an unknown key, so timing does not tell which keys exist.
    const expected = entry?.secretDigest ?? digest('\u0000no such key');
    const secretMatches = timingSafeEqual(offered, expected);
    if (!entry || !secretMatches) throw unauthorized('invalid access key or secret key');
    return entry.project;
  }

  /** Every configured token is compared (no early exit), so timing does not tell how close a guess was. */
  private byBearerToken(token: string): ProjectRecord {
    const offered = digest(token);
    let found: ProjectRecord | undefined;
    for (const entry of this.tokens) {
      if (timingSafeEqual(offered, entry.tokenDigest)) found = entry.project;
    }
    if (found === undefined) {
      throw unauthorized(
        'invalid bearer token',
        this.tokens.length === 0
          ? 'no project of this local cloud has a bearer_token: use HTTP Basic'
          : undefined,
      );
    }
    return found;
  }
}
