// Keeping secrets (the secret key, passwords) out of messages, logs and printed objects. Replacing
// them in text is redact-text.ts's (safe in the workflow sandbox too).
import { inspect } from 'node:util';
import { SECRET_FIELD_NAME as SECRET_FIELD } from './secret-fields';

import { REDACTED } from './redact-text';

export { REDACTED, createRedactor, redact } from './redact-text';

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
