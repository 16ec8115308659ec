// The payload codec: every payload (inputs, results, memos, heartbeat details, encoded failure
// attributes) is serialised whole and sealed with AES-256-GCM under the current key. The key id
// travels in the payload metadata, so a payload decodes with whichever known key sealed it.
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { EncryptionKeyRing } from './encryption-keys';
import { WorkerError } from './errors';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const ENCODING_METADATA_KEY = 'encoding';
export const KEY_ID_METADATA_KEY = 'encryption-key-id';

const ProtoPayload = temporal.api.common.v1.Payload;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

function metadataText(payload: Payload, key: string): string | undefined {
  const value = payload.metadata?.[key];
  return value === undefined || value === null ? undefined : fromUtf8.decode(value);
}

export function isEncryptedPayload(payload: Payload): boolean {
  return metadataText(payload, ENCODING_METADATA_KEY) === ENCRYPTED_ENCODING;
}

export class EncryptionCodec implements PayloadCodec {
  readonly #keys: EncryptionKeyRing;

  constructor(keys: EncryptionKeyRing) {
    this.#keys = keys;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const sealed = this.#keys.encrypt(ProtoPayload.encode(payload).finish());
      return {
        metadata: {
          [ENCODING_METADATA_KEY]: utf8.encode(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA_KEY]: utf8.encode(sealed.keyId),
        },
        data: sealed.data,
      };
    });
  }

  /** Payloads that are not encrypted (written before encryption was enabled) pass unchanged. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!isEncryptedPayload(payload)) return payload;
      const keyId = metadataText(payload, KEY_ID_METADATA_KEY);
      if (keyId === undefined) {
        throw new WorkerError(
          'TIDELINE_PAYLOAD_DECRYPT_FAILED',
          `encrypted payload has no "${KEY_ID_METADATA_KEY}" metadata`,
        );
      }
      const plaintext = this.#keys.decrypt({ keyId, data: payload.data ?? new Uint8Array() });
      try {
        return ProtoPayload.decode(plaintext);
      } catch (error) {
        throw new WorkerError(
          'TIDELINE_PAYLOAD_DECRYPT_FAILED',
          'decrypted payload is not a valid Temporal payload',
          {
            cause: error,
          },
        );
      }
    });
  }
}

/** Absolute path of the module exporting `failureConverter` (resolves to .ts or .js alike). */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * The data converter for the worker AND every client (CLI, tests): encrypted payloads and
 * encrypted failure messages. Pass `FAILURE_CONVERTER_PATH` to `bundleWorkflowCode` as well.
 */
export function createDataConverter(keys: EncryptionKeyRing): DataConverter {
  return {
    payloadCodecs: [new EncryptionCodec(keys)],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}
