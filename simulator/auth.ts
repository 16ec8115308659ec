// HTTP Basic authentication: user = access key, password = secret key. A key pair belongs to one
// project. Secrets are compared in constant time and never echoed in answers.
import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthorized } from './errors';
import type { ProjectRecord } from './state';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export class Authenticator {
  private readonly byAccessKey = new Map<string, { project: ProjectRecord; secretDigest: Buffer }>();

  constructor(projects: readonly ProjectRecord[]) {
    for (const project of projects) {
      this.byAccessKey.set(project.access_key, { project, secretDigest: digest(project.secret_key) });
    }
  }

  /** The project of the key pair in an `Authorization` header; 401 when missing or wrong. */
  authenticate(header: string | undefined): ProjectRecord {
    const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header ?? '');
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
}
