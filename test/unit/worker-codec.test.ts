import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { ApplicationFailure, defaultPayloadConverter, type Payload } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import {
  createDataConverter,
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  FAILURE_CONVERTER_PATH,
  KEY_ID_METADATA_KEY,
} from '../../worker/codec';
import { EncryptionKeyRing, parseKeyList } from '../../worker/encryption-keys';

const keyA = { id: 'key-a', key: randomBytes(32) };
const keyB = { id: 'key-b', key: randomBytes(32) };
const text = new TextDecoder();

function payloadOf(value: unknown): Payload {
  return defaultPayloadConverter.toPayload(value);
}

function valueOf(payload: Payload): unknown {
  return defaultPayloadConverter.fromPayload(payload);
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as { code?: string }).code).toBe(code);
  return error as Error;
}

describe('EncryptionCodec', () => {
  const secret = 'initial-password-S3cr3t!';

  test('round-trips payloads and hides the plaintext', async () => {
    const codec = new EncryptionCodec(new EncryptionKeyRing([keyA]));
    const original = [payloadOf({ password: secret, n: 42 }), payloadOf(undefined), payloadOf('plain')];
    const encoded = await codec.encode(original);

    expect(encoded).toHaveLength(3);
    for (const payload of encoded) {
      expect(text.decode(payload.metadata?.encoding ?? new Uint8Array())).toBe(ENCRYPTED_ENCODING);
      expect(text.decode(payload.metadata?.[KEY_ID_METADATA_KEY] ?? new Uint8Array())).toBe('key-a');
      expect(Buffer.from(payload.data ?? []).includes(Buffer.from(secret))).toBe(false);
      expect(Buffer.from(payload.data ?? []).includes(Buffer.from('json/plain'))).toBe(false);
    }
    const decoded = await codec.decode(encoded);
    expect(decoded.map(valueOf)).toEqual([{ password: secret, n: 42 }, undefined, 'plain']);
  });

  test('uses a fresh IV for every payload', async () => {
    const codec = new EncryptionCodec(new EncryptionKeyRing([keyA]));
    const [first, second] = await codec.encode([payloadOf('same'), payloadOf('same')]);
    expect(Buffer.from(first?.data ?? []).equals(Buffer.from(second?.data ?? []))).toBe(false);
    expect(
      Buffer.from(first?.data ?? [])
        .subarray(0, 12)
        .equals(Buffer.from(second?.data ?? []).subarray(0, 12)),
    ).toBe(false);
  });

  test('rotation: the new key encodes, the old key still decodes', async () => {
    const before = new EncryptionCodec(new EncryptionKeyRing([keyA]));
    const oldPayloads = await before.encode([payloadOf('written before rotation')]);

    const after = new EncryptionCodec(new EncryptionKeyRing([keyB, keyA]));
    const newPayloads = await after.encode([payloadOf('written after rotation')]);
    expect(text.decode(newPayloads[0]?.metadata?.[KEY_ID_METADATA_KEY] ?? new Uint8Array())).toBe('key-b');

    const decoded = await after.decode([...oldPayloads, ...newPayloads]);
    expect(decoded.map(valueOf)).toEqual(['written before rotation', 'written after rotation']);
  });

  test('unknown key id fails with TIDELINE_ENCRYPTION_KEY_UNKNOWN and names the id, not the key', async () => {
    const writer = new EncryptionCodec(new EncryptionKeyRing([keyB]));
    const encoded = await writer.encode([payloadOf('x')]);
    const reader = new EncryptionCodec(new EncryptionKeyRing([keyA]));
    const error = await expectCode(reader.decode(encoded), 'TIDELINE_ENCRYPTION_KEY_UNKNOWN');
    expect(error.message).toContain('key-b');
    expect(error.message).not.toContain(keyA.key.toString('base64'));
  });

  test('detects tampering with the ciphertext, the tag and the key id', async () => {
    const codec = new EncryptionCodec(new EncryptionKeyRing([keyA, { id: 'key-a2', key: keyA.key }]));
    const [payload] = await codec.encode([payloadOf({ amount: 100 })]);
    if (!payload?.data || !payload.metadata) throw new Error('no payload');

    const flipped = Buffer.from(payload.data);
    flipped[20] = (flipped[20] ?? 0) ^ 0x01;
    await expectCode(codec.decode([{ ...payload, data: flipped }]), 'TIDELINE_PAYLOAD_DECRYPT_FAILED');

    const truncated = Buffer.from(payload.data).subarray(0, payload.data.length - 1);
    await expectCode(codec.decode([{ ...payload, data: truncated }]), 'TIDELINE_PAYLOAD_DECRYPT_FAILED');

    // Same key bytes under another id: the id is authenticated, so relabelling is caught.
    const relabelled = { ...payload.metadata, [KEY_ID_METADATA_KEY]: new TextEncoder().encode('key-a2') };
    await expectCode(
      codec.decode([{ metadata: relabelled, data: payload.data }]),
      'TIDELINE_PAYLOAD_DECRYPT_FAILED',
    );
  });

  test('passes unencrypted payloads through on decode', async () => {
    const codec = new EncryptionCodec(new EncryptionKeyRing([keyA]));
    const plain = payloadOf({ legacy: true });
    const [decoded] = await codec.decode([plain]);
    expect(valueOf(decoded as Payload)).toEqual({ legacy: true });
  });
});

describe('createDataConverter', () => {
  test('encrypts failure messages: the converter moves them into an encoded attribute', async () => {
    const converter = createDataConverter(new EncryptionKeyRing([keyA]));
    expect(converter.failureConverterPath).toBe(FAILURE_CONVERTER_PATH);
    const loaded = loadDataConverter(converter);
    const failure = loaded.failureConverter.errorToFailure(
      ApplicationFailure.nonRetryable('password hunter2 rejected', 'SOME_CODE'),
      loaded.payloadConverter,
    );
    expect(failure.message).not.toContain('hunter2');
    expect(failure.encodedAttributes).toBeTruthy();
    const [sealed] = await (loaded.payloadCodecs[0] as EncryptionCodec).encode([
      failure.encodedAttributes as Payload,
    ]);
    expect(Buffer.from(sealed?.data ?? []).includes(Buffer.from('hunter2'))).toBe(false);
  });
});

describe('key parsing', () => {
  test('TIDELINE_ENCRYPTION_KEYS: first key is current; all ids known', () => {
    const ring = parseKeyList(` new:${keyB.key.toString('base64')} , old:${keyA.key.toString('base64url')}`);
    expect(ring.currentKeyId).toBe('new');
    expect(ring.keyIds).toEqual(['new', 'old']);
  });

  test.each([
    ['an empty list', '', /empty/],
    ['an entry without id', 'nocolon', /"<key id>:<base64 key>"/],
    ['a bad key id', `bad id!:${randomBytes(32).toString('base64')}`, /key id/],
    ['a 16-byte key', `short:${randomBytes(16).toString('base64')}`, /exactly 32 bytes/],
    [
      'a duplicate id',
      `dup:${randomBytes(32).toString('base64')},dup:${randomBytes(32).toString('base64')}`,
      /twice/,
    ],
  ])('rejects %s clearly', (_label, value, message) => {
    let caught: unknown;
    try {
      parseKeyList(value);
    } catch (error) {
      caught = error;
    }
    expect((caught as { code?: string }).code).toBe('TIDELINE_ENCRYPTION_KEY_INVALID');
    expect((caught as Error).message).toMatch(message);
  });

  test('never shows key bytes in inspect or JSON', () => {
    const ring = new EncryptionKeyRing([keyA]);
    const shown = `${inspect(ring, { showHidden: true, depth: 5 })} ${JSON.stringify(ring)}`;
    expect(shown).toContain('key-a');
    expect(shown).not.toContain(keyA.key.toString('base64'));
    expect(shown).not.toContain(keyA.key.toString('hex'));
  });
});
