// Which fields hold secrets. The catalogue (cloud/operations.ts) lists, per operation, the request
// and answer fields that are secret; the runbook validator (dsl/actions.ts) reads those lists and
// the worker's logger (worker/redacting-logger.ts), the client's error messages (cloud/redact.ts)
// and the validator's secret-flow check (dsl/validator-secrets.ts) treat every field so named as
// secret. A unit test checks that each operation lists exactly its fields that match
// SECRET_FIELD_NAME.

/** Names of Cloud API request and answer fields whose values are secrets (`password`, `initial_password`). */
export const SECRET_FIELD_NAME = /password|secret/i;

/**
 * Names of credentials the worker handles besides Cloud API bodies (the Temporal API key, bearer
 * tokens): the logger redacts string fields so named too. Not a catalogue secret: `auth.info`
 * answers an `api_key` object that describes the key, not the key itself.
 */
export const CREDENTIAL_FIELD_NAME = /api_?key|token/i;

export function isSecretFieldName(name: string): boolean {
  return SECRET_FIELD_NAME.test(name);
}
