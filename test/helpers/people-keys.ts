// Ed25519 key pairs for the people of an approvals or governance test, by name.
import { generateKeyPairSync, type KeyPairKeyObjectResult } from 'node:crypto';

export function keyPairsFor<Name extends string>(
  people: readonly Name[],
): Record<Name, KeyPairKeyObjectResult> {
  return Object.fromEntries(people.map((name) => [name, generateKeyPairSync('ed25519')])) as Record<
    Name,
    KeyPairKeyObjectResult
  >;
}
