// The set of AES-256-GCM keys a process can use. One key is current (used to encrypt); all of
// them can decrypt, so keys rotate by adding a new current key and keeping the old ones until the
// histories encrypted with them are gone. Key bytes never leave this module: not via inspect,
// JSON or error messages.
import { createCipheriv, createDecipheriv, randomBytes, randomFillSync } from 'node:crypto';
import { inspect } from 'node:util';
import { z } from 'zod';
import { WorkerError } from './errors';

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** IVs per random fill: 341 × 12 bytes, just under 4 KiB. */
export const IVS_PER_FILL = 341;

/**
 * Where IVs come from. A `randomBytes(12)` per payload is a syscall per payload (1.5 % of a busy
 * worker's CPU); one fill from the same CSPRNG serves the next 341 payloads. Every byte is handed
 * out once; a refill takes a new buffer, so an IV already handed out never changes under its user.
 */
let ivPool: Buffer = Buffer.alloc(0);
let ivOffset = 0;

function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafeSlow(IV_BYTES * IVS_PER_FILL));
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

export const KeyId = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'a key id is 1–64 characters of letters, digits, ".", "_" or "-"');

/** Standard or URL-safe base64 of exactly 32 bytes. The value itself never appears in messages. */
export const KeyMaterial = z.string().transform((text, ctx) => {
  const trimmed = text.trim();
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (bytes.length !== KEY_BYTES) {
    ctx.addIssue({ code: 'custom', message: `a key must be base64 of exactly ${KEY_BYTES} bytes` });
    return z.NEVER;
  }
  return bytes;
});

export interface EncryptionKeyInput {
  id: string;
  key: Uint8Array;
}

export interface EncryptedBlob {
  keyId: string;
  /** IV (12 bytes) ‖ ciphertext ‖ GCM tag (16 bytes). */
  data: Uint8Array;
}

export class EncryptionKeyRing {
  readonly currentKeyId: string;
  readonly #keys: ReadonlyMap<string, Buffer>;

  /** The first key is current unless `currentKeyId` names another one. */
  constructor(keys: readonly EncryptionKeyInput[], currentKeyId?: string) {
    const map = new Map<string, Buffer>();
    for (const { id, key } of keys) {
      if (!KeyId.safeParse(id).success) {
        throw new WorkerError(
          'TIDELINE_ENCRYPTION_KEY_INVALID',
          `invalid encryption key id "${id.slice(0, 64)}"`,
        );
      }
      if (key.length !== KEY_BYTES) {
        throw new WorkerError(
          'TIDELINE_ENCRYPTION_KEY_INVALID',
          `encryption key "${id}" must be ${KEY_BYTES} bytes`,
        );
      }
      if (map.has(id)) {
        throw new WorkerError('TIDELINE_ENCRYPTION_KEY_INVALID', `encryption key id "${id}" is given twice`);
      }
      map.set(id, Buffer.from(key));
    }
    const current = currentKeyId ?? keys[0]?.id;
    if (current === undefined) {
      throw new WorkerError('TIDELINE_ENCRYPTION_KEY_INVALID', 'at least one encryption key is needed');
    }
    if (!map.has(current)) {
      throw new WorkerError('TIDELINE_ENCRYPTION_KEY_INVALID', `the current key id "${current}" has no key`);
    }
    this.currentKeyId = current;
    this.#keys = map;
  }

  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  has(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  /** Encrypts with the current key. The key id is authenticated too, so it cannot be swapped. */
  encrypt(plaintext: Uint8Array): EncryptedBlob {
    const keyId = this.currentKeyId;
    const key = this.#keys.get(keyId) as Buffer;
    const iv = nextIv();
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(keyId, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId, data: Buffer.concat([iv, body, cipher.getAuthTag()]) };
  }

  /** Decrypts with the key the blob names; fails with a stable code on unknown keys or tampering. */
  decrypt(blob: EncryptedBlob): Uint8Array {
    const key = this.#keys.get(blob.keyId);
    if (key === undefined) {
      throw new WorkerError(
        'TIDELINE_ENCRYPTION_KEY_UNKNOWN',
        `payload is encrypted with key id "${blob.keyId.slice(0, 64)}", which is not configured ` +
          `(known: ${this.keyIds.join(', ')}); add that key to TIDELINE_ENCRYPTION_KEYS or the key file`,
      );
    }
    if (blob.data.length < IV_BYTES + TAG_BYTES) {
      throw new WorkerError('TIDELINE_PAYLOAD_DECRYPT_FAILED', 'encrypted payload is too short to be valid');
    }
    const data = Buffer.from(blob.data);
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const body = data.subarray(IV_BYTES, data.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(blob.keyId, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]);
    } catch (error) {
      throw new WorkerError(
        'TIDELINE_PAYLOAD_DECRYPT_FAILED',
        `payload encrypted with key id "${blob.keyId}" failed authentication (tampered or corrupted)`,
        { cause: error },
      );
    }
  }

  toJSON(): { currentKeyId: string; keyIds: string[] } {
    return { currentKeyId: this.currentKeyId, keyIds: this.keyIds };
  }

  [inspect.custom](): string {
    return `EncryptionKeyRing { current: ${this.currentKeyId}, keys: [${this.keyIds.join(', ')}] }`;
  }
}

export function generateKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'invalid value';
}

/**
 * Parses `TIDELINE_ENCRYPTION_KEYS`: `id1:base64key,id2:base64key`; the first key is current.
 */
export function parseKeyList(text: string): EncryptionKeyRing {
  const entries = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (entries.length === 0) {
    throw new WorkerError('TIDELINE_ENCRYPTION_KEY_INVALID', 'TIDELINE_ENCRYPTION_KEYS is empty');
  }
  const keys = entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    if (colon <= 0) {
      throw new WorkerError(
        'TIDELINE_ENCRYPTION_KEY_INVALID',
        `TIDELINE_ENCRYPTION_KEYS entry ${index + 1} must look like "<key id>:<base64 key>"`,
      );
    }
    const id = KeyId.safeParse(entry.slice(0, colon).trim());
    if (!id.success) {
      throw new WorkerError(
        'TIDELINE_ENCRYPTION_KEY_INVALID',
        `TIDELINE_ENCRYPTION_KEYS entry ${index + 1}: ${firstIssue(id.error)}`,
      );
    }
    const key = KeyMaterial.safeParse(entry.slice(colon + 1));
    if (!key.success) {
      throw new WorkerError(
        'TIDELINE_ENCRYPTION_KEY_INVALID',
        `TIDELINE_ENCRYPTION_KEYS key "${id.data}": ${firstIssue(key.error)}`,
      );
    }
    return { id: id.data, key: key.data };
  });
  return new EncryptionKeyRing(keys);
}

/** The key file: `{ "current": "<id>", "keys": [{ "id": "<id>", "key": "<base64>", "createdAt": "…" }] }`. */
export const KeyFileSchema = z.object({
  current: KeyId.optional(),
  keys: z
    .array(z.object({ id: KeyId, key: KeyMaterial, createdAt: z.string().optional() }))
    .min(1, 'the key file must list at least one key'),
});

export function parseKeyFile(content: string, fileLabel: string): EncryptionKeyRing {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    throw new WorkerError('TIDELINE_KEY_FILE_INVALID', `key file ${fileLabel} is not valid JSON`);
  }
  const parsed = KeyFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new WorkerError(
      'TIDELINE_KEY_FILE_INVALID',
      `key file ${fileLabel}${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  try {
    return new EncryptionKeyRing(parsed.data.keys, parsed.data.current);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new WorkerError('TIDELINE_KEY_FILE_INVALID', `key file ${fileLabel}: ${message}`);
  }
}
