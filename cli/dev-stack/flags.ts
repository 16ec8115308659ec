// Flag values of the dev-stack commands, checked, the codec server's token, and start-up failures
// as CLI errors.
import { randomBytes } from 'node:crypto';
import { Dialect } from '../../local-cloud/dialect';
import { CliError, isCliError } from '../errors';

/** `--dialect seed|current`: which dialect of the Cloud API the local cloud answers in. */
export function dialectFlag(text: string | undefined): Dialect | undefined {
  if (text === undefined) return undefined;
  const parsed = Dialect.safeParse(text);
  if (parsed.success) return parsed.data;
  throw new CliError(
    'CLI_USAGE',
    `--dialect must be one of ${Dialect.options.join(', ')}`,
    `got ${JSON.stringify(text)}; seed answers as spec.md, current as the real API does today`,
  );
}

export function portFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < 0 || value > 65535) {
    throw new CliError(
      'CLI_USAGE',
      `--${flag} must be a port number (0–65535)`,
      `got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

export function numberFlag(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new CliError(
      'CLI_USAGE',
      `--${flag} must be a number from ${min} to ${max}`,
      `got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

const MIN_CODEC_TOKEN_LENGTH = 16;

/**
 * The bearer token of a codec server (`tideline codec-server`, `tideline dev`) from the value of
 * TIDELINE_CODEC_TOKEN: it (at least 16 characters), or 32 random bytes when it is unset or empty.
 */
export function codecToken(fromEnv: string | undefined): { token: string; source: 'env' | 'generated' } {
  const configured = fromEnv?.trim();
  if (configured === undefined || configured === '') {
    return { token: randomBytes(32).toString('base64url'), source: 'generated' };
  }
  if (configured.length < MIN_CODEC_TOKEN_LENGTH) {
    throw new CliError(
      'CLI_USAGE',
      `TIDELINE_CODEC_TOKEN must be at least ${MIN_CODEC_TOKEN_LENGTH} characters`,
    );
  }
  return { token: configured, source: 'env' };
}

/** Anything that stops the stack from starting, as a one-line CLI error with what to try. */
export function stackFailure(error: unknown): CliError {
  if (isCliError(error)) return error;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && code.startsWith('TIDELINE_KEY')) {
    return new CliError('CLI_USAGE', message, 'check TIDELINE_ENCRYPTION_KEYS / TIDELINE_KEY_FILE');
  }
  if (code === 'EADDRINUSE') {
    return new CliError(
      'CLI_USAGE',
      `a port is already in use: ${message}`,
      'choose other ports or leave the port flags out',
    );
  }
  return new CliError(
    'TEMPORAL_UNAVAILABLE',
    `the dev stack could not start: ${message.split('\n')[0] ?? message}`,
    'run `npm run setup` to check the Temporal CLI; retry with --port 0 for free ports',
  );
}
