// Ed25519 key pairs for the people of an approvals or governance test, by name, and the starts
// they sign.
import { generateKeyPairSync, type KeyObject, type KeyPairKeyObjectResult } from 'node:crypto';
import { signStart } from '../../activities/approval-signatures';
import type { StartFields } from '../../contract/approval-messages';
import type { RunbookWorkflowInput } from '../../contract/run-messages';

export function keyPairsFor<Name extends string>(
  people: readonly Name[],
): Record<Name, KeyPairKeyObjectResult> {
  return Object.fromEntries(people.map((name) => [name, generateKeyPairSync('ed25519')])) as Record<
    Name,
    KeyPairKeyObjectResult
  >;
}

/**
 * A run's start input signed by `by` as the CLI signs it: for exactly this workflow id, task
 * queue, definition and inputs (what an attacker's raw start would have to copy).
 */
export function signedStartInput(
  key: KeyObject,
  fields: StartFields & { inputs: Record<string, unknown> },
): RunbookWorkflowInput {
  return { definition: fields.definition, inputs: fields.inputs, startedBy: signStart(key, fields) };
}
