// Replacing secrets in text with `[REDACTED]`. No Node built-ins: the workflow sandbox uses it too
// (a run's notifications), besides the client, the worker's logger and its span scrubber.

export const REDACTED = '[REDACTED]';

/** How a secret value is shown where its presence matters but its value must not appear. */
export const SECRET_MASK = '••••••';

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
