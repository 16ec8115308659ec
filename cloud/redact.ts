// Keeping secrets (the secret key, passwords) out of messages, logs and printed objects.
import { inspect } from 'node:util';
import { SECRET_FIELD_NAME as SECRET_FIELD } from './secret-fields';

export const REDACTED = '[REDACTED]';

/**
 * Replaces every occurrence of each secret in `text` with `[REDACTED]`, including the forms a
 * server is likely to echo back: JSON-escaped and URL-encoded. Longest secrets go first, so a
 * secret that contains another is replaced whole.
 */
export function redact(text: string, secrets: Iterable<string | undefined>): string {
  return createRedactor(secrets)(text);
}

/**
 * `redact` with the secrets' forms worked out once, for a caller that scrubs many strings with the
 * same secrets (the worker's logger scrubs every field of every line it prints).
 */
export function createRedactor(secrets: Iterable<string | undefined>): (text: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.length === 0) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.add(encodeURIComponent(secret));
  }
  const ordered = [...forms].filter((form) => form.length > 0).sort((a, b) => b.length - a.length);
  return (text) => {
    let result = text;
    for (const form of ordered) result = result.split(form).join(REDACTED);
    return result;
  };
}

/**
 * The string values of secret-looking fields (`password`, `initial_password`, `secret_key`…)
 * anywhere inside `value`, so they can be scrubbed from messages about a request or an answer.
 */
export function collectSecretValues(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) collectSecretValues(item, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === 'string' && SECRET_FIELD.test(key)) found.push(field);
      else collectSecretValues(field, found);
    }
  }
  return found;
}

/**
 * A secret string that prints as `[REDACTED]` everywhere (`String()`, template literals,
 * `util.inspect`, `console.log`, `JSON.stringify`); only `reveal()` gives the value back.
 * Configuration can carry the secret key in one of these from the moment it is read.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/** The plain value of a secret given either as a string or as a `Secret`. */
export function revealSecret(value: string | Secret): string {
  return value instanceof Secret ? value.reveal() : value;
}
