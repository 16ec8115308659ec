// Flag values of the dev-stack commands, checked, and start-up failures as CLI errors.
import { Dialect } from '../local-cloud/dialect';
import { isStackError } from '../stack/stack-error';
import { CliError, cliErrorOf, isCliError } from './errors';

/** The help line of `--dialect` on the dev-stack commands. */
export const DIALECT_FLAG_HELP: readonly [string, string] = [
  '--dialect current|seed',
  'the local cloud answers as the real API does today (current, the default) or as spec.md (seed)',
];

/** `--dialect current|seed`: which dialect of the Cloud API the local cloud answers in. */
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

/** Anything that stops the stack from starting, as a one-line CLI error with what to try. */
export function stackFailure(error: unknown): CliError {
  if (isCliError(error)) return error;
  if (isStackError(error)) return cliErrorOf(error);
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && code.startsWith('TIDELINE_KEY')) {
    return new CliError('CLI_USAGE', message, 'check TIDELINE_ENCRYPTION_KEYS / TIDELINE_KEY_FILE');
  }
  if (code === 'TIDELINE_CONFIG_INVALID') {
    return new CliError(
      'CLI_USAGE',
      message,
      'fix the worker configuration file it names (--config / TIDELINE_CONFIG), then start again',
    );
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
