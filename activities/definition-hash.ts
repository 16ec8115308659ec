// The content hash that names a runbook definition: SHA-256 over its canonical JSON (the
// normalised definition, child runbooks embedded). The worker's catalogue, the run's admission,
// the signed approvals and `tideline catalog list` all name a definition by it.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../contract/canonical-json';
import type { RunbookDefinition } from '../dsl/definition';

export function definitionHash(definition: RunbookDefinition): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/** The short form shown next to a runbook's name (the first 12 hex digits). */
export function shortHash(hash: string): string {
  return hash.slice(0, 12);
}
