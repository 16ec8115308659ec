// Ed25519 approval keys: the public key's text form (`ed25519:<base64 of the 32 raw bytes>`), its
// key id, and signing/verifying the payloads of contract/approval-messages.ts with node:crypto.
// Shared by the CLI (keys create, signing) and the `approval.verify` activity.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 raw key bytes follow it. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PREFIX = 'ed25519:';

export function publicKeyText(key: KeyObject): string {
  const der = key.export({ format: 'der', type: 'spki' });
  return `${PREFIX}${der.subarray(SPKI_PREFIX.length).toString('base64')}`;
}

/** The key object of `ed25519:<base64>`, or undefined when the text is not one. */
export function parsePublicKey(text: string): KeyObject | undefined {
  if (!text.startsWith(PREFIX)) return undefined;
  const raw = Buffer.from(text.slice(PREFIX.length), 'base64');
  if (raw.length !== 32) return undefined;
  try {
    return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** First 16 hex digits of SHA-256 over the raw public key. */
export function keyId(publicKey: KeyObject): string {
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return createHash('sha256').update(der.subarray(SPKI_PREFIX.length)).digest('hex').slice(0, 16);
}

export function privateKeyFromPem(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 private key');
  return key;
}

/** base64 signature of `payload`. */
export function signPayload(payload: string, privateKey: KeyObject): string {
  return sign(null, Buffer.from(payload, 'utf8'), privateKey).toString('base64');
}

export function verifyPayload(payload: string, signature: string, publicKey: KeyObject): boolean {
  try {
    return verify(null, Buffer.from(payload, 'utf8'), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
