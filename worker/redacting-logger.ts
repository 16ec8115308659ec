// The worker's log output goes through this logger: it removes the secrets the worker knows
// (Cloud API secret keys, the Temporal API key) wherever they appear, and the values of
// secret-named fields (`password`, `initial_password`, `secretKey`…) in log metadata. Secrets the
// worker cannot know are kept out of messages at their source (the client redacts them).
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { redact, REDACTED } from '../cloud/redact';

const SECRET_FIELD = /password|secret|api_?key|token/i;

function scrub(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const copy: Record<string, unknown> = {
      name: value.name,
      message: redact(value.message, secrets),
      stack: value.stack === undefined ? undefined : redact(value.stack, secrets),
    };
    for (const key of ['code', 'type', 'nonRetryable'] as const) {
      if (key in value) copy[key] = (value as unknown as Record<string, unknown>)[key];
    }
    if (value.cause !== undefined) copy.cause = scrub(value.cause, secrets, depth + 1);
    return copy;
  }
  if (Array.isArray(value)) return value.map((item) => scrub(item, secrets, depth + 1));
  const result: Record<string | symbol, unknown> = {};
  // Symbol keys carry SDK bookkeeping (e.g. the original timestamp of a workflow log): keep them.
  for (const symbol of Object.getOwnPropertySymbols(value))
    result[symbol] = (value as Record<symbol, unknown>)[symbol];
  for (const [key, field] of Object.entries(value)) {
    result[key] =
      typeof field === 'string' && SECRET_FIELD.test(key) ? REDACTED : scrub(field, secrets, depth + 1);
  }
  return result;
}

export function createRedactingLogger(inner: Logger, knownSecrets: Iterable<string | undefined>): Logger {
  const secrets = [...knownSecrets].filter(
    (secret): secret is string => typeof secret === 'string' && secret !== '',
  );
  const log = (level: LogLevel, message: string, meta?: LogMetadata): unknown =>
    inner.log(
      level,
      redact(message, secrets),
      meta === undefined ? undefined : (scrub(meta, secrets, 0) as LogMetadata),
    );
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
