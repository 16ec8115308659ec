// The hash that ties a start to the plan the agent read: SHA-256 over the definition hash (the
// runbook's normalised definition, child runbooks included) and the resolved inputs that are not
// secret. A changed definition or a changed input gives another hash, so `start` refuses a plan
// that no longer holds. Secret values stay out: a hash of a secret is a way to guess it.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../contract/canonical-json';
import type { JsonValue } from '../dsl/expressions';

export const PLAN_HASH_PREFIX = 'sha256:';

export function planHash(definitionHash: string, visibleInputs: Record<string, JsonValue>): string {
  const digest = createHash('sha256')
    .update(canonicalJson({ definition: definitionHash, inputs: visibleInputs }))
    .digest('hex');
  return `${PLAN_HASH_PREFIX}${digest}`;
}
