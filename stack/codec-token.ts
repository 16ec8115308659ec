// The bearer token of a codec server (`tideline codec-server`, `tideline dev`) from the value of
// TIDELINE_CODEC_TOKEN: it (at least 16 characters), or 32 random bytes when it is unset or empty.
// `tideline mcp --http` takes its token alike, from TIDELINE_MCP_TOKEN.
import { randomBytes } from 'node:crypto';
import { StackError } from './stack-error';

const MIN_CODEC_TOKEN_LENGTH = 16;

export function codecToken(
  fromEnv: string | undefined,
  variable = 'TIDELINE_CODEC_TOKEN',
): { token: string; source: 'env' | 'generated' } {
  const configured = fromEnv?.trim();
  if (configured === undefined || configured === '') {
    return { token: randomBytes(32).toString('base64url'), source: 'generated' };
  }
  if (configured.length < MIN_CODEC_TOKEN_LENGTH) {
    throw new StackError('CLI_USAGE', `${variable} must be at least ${MIN_CODEC_TOKEN_LENGTH} characters`);
  }
  return { token: configured, source: 'env' };
}
