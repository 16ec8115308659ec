// The worker's log output goes through this logger: it removes the secrets the worker knows
// (Cloud API secret keys, the Temporal API key) wherever they appear, and the values of
// secret-named fields (`password`, `initial_password`, `secretKey`…) in log metadata. Secrets the
// worker cannot know are kept out of messages at their source (the client redacts them).
// Lines below the output's level are dropped here, before any scrubbing: the SDK logs at TRACE for
// every workflow activation and activity, and scrubbing lines nobody prints cost real CPU.
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { ACTION_NAMES, operations } from '../cloud/operations';
import { createRedactor, REDACTED } from '../cloud/redact';
import { CREDENTIAL_FIELD_NAME, isSecretFieldName } from '../cloud/secret-fields';

/** Every request and answer field the catalogue lists as secret (cloud/operations.ts). */
const CATALOGUE_SECRET_FIELDS: ReadonlySet<string> = new Set(
  ACTION_NAMES.flatMap((name) => [
    ...operations[name].secretFields.input,
    ...operations[name].secretFields.output,
  ]),
);

/** Field names whose string values are secrets in log metadata: the catalogue's, and credentials. */
export function isLoggedSecretField(name: string): boolean {
  return CATALOGUE_SECRET_FIELDS.has(name) || isSecretFieldName(name) || CREDENTIAL_FIELD_NAME.test(name);
}

const SEVERITY: Readonly<Record<LogLevel, number>> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

type Redactor = (text: string) => string;

function scrub(value: unknown, redact: Redactor, depth: number): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const copy: Record<string, unknown> = {
      name: value.name,
      message: redact(value.message),
      stack: value.stack === undefined ? undefined : redact(value.stack),
    };
    for (const key of ['code', 'type', 'nonRetryable'] as const) {
      if (key in value) copy[key] = (value as unknown as Record<string, unknown>)[key];
    }
    if (value.cause !== undefined) copy.cause = scrub(value.cause, redact, depth + 1);
    return copy;
  }
  if (Array.isArray(value)) return value.map((item) => scrub(item, redact, depth + 1));
  const result: Record<string | symbol, unknown> = {};
  // Symbol keys carry SDK bookkeeping (e.g. the original timestamp of a workflow log): keep them.
  for (const symbol of Object.getOwnPropertySymbols(value))
    result[symbol] = (value as Record<symbol, unknown>)[symbol];
  for (const [key, field] of Object.entries(value)) {
    result[key] =
      typeof field === 'string' && isLoggedSecretField(key) ? REDACTED : scrub(field, redact, depth + 1);
  }
  return result;
}

/** The level a logger prints from, if it says (DefaultLogger has a `level`); else undefined. */
function levelOf(logger: Logger): LogLevel | undefined {
  const level = (logger as { level?: unknown }).level;
  return typeof level === 'string' && Object.hasOwn(SEVERITY, level) ? (level as LogLevel) : undefined;
}

export interface RedactingLoggerOptions {
  /**
   * Lines below this level are dropped without being scrubbed or passed on. Default: the inner
   * logger's own `level` (as DefaultLogger has), else TRACE — every line is scrubbed and passed on.
   */
  level?: LogLevel | undefined;
}

/** A logger that scrubs secrets from what it passes on; `level` is the lowest level it passes on. */
export type RedactingLogger = Logger & { readonly level: LogLevel };

export function createRedactingLogger(
  inner: Logger,
  knownSecrets: Iterable<string | undefined>,
  options: RedactingLoggerOptions = {},
): RedactingLogger {
  const secrets = [...knownSecrets].filter(
    (secret): secret is string => typeof secret === 'string' && secret !== '',
  );
  const redact = createRedactor(secrets);
  const level = options.level ?? levelOf(inner) ?? 'TRACE';
  const threshold = SEVERITY[level];
  const log = (lineLevel: LogLevel, message: string, meta?: LogMetadata): unknown => {
    // A level this table does not know is passed on (scrubbed), as the inner logger may know it.
    const severity: number | undefined = SEVERITY[lineLevel];
    if (severity !== undefined && severity < threshold) return undefined;
    return inner.log(
      lineLevel,
      redact(message),
      meta === undefined ? undefined : (scrub(meta, redact, 0) as LogMetadata),
    );
  };
  const at = (lineLevel: LogLevel): ((message: string, meta?: LogMetadata) => unknown) =>
    SEVERITY[lineLevel] < threshold ? () => undefined : (message, meta) => log(lineLevel, message, meta);
  return {
    level,
    log,
    trace: at('TRACE'),
    debug: at('DEBUG'),
    info: at('INFO'),
    warn: at('WARN'),
    error: at('ERROR'),
  };
}
