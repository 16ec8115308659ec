// AES-GCM IVs come from a pool that one CSPRNG fill serves for many payloads: every IV must still
// be fresh (never reused), the pool must refill when spent, and the blob format stays the same.
import { randomFillSync } from 'node:crypto';
import { EncryptionKeyRing, generateKey, IVS_PER_FILL } from '../../worker/encryption-keys';

// node:crypto's exports cannot be spied on in place; this counts the fills and still fills.
jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof import('node:crypto')>('node:crypto');
  return { ...actual, randomFillSync: jest.fn(actual.randomFillSync) };
});
const fill = randomFillSync as unknown as jest.Mock;

const IV_BYTES = 12;
const TAG_BYTES = 16;

describe('IVs of encrypted payloads', () => {
  test('consecutive encryptions use different IVs, the pool refills when spent, and every blob decrypts', () => {
    fill.mockClear();
    const ring = new EncryptionKeyRing([{ id: 'k1', key: generateKey() }]);
    const plaintext = Buffer.from('the same payload every time');
    const count = IVS_PER_FILL * 2 + 5;
    const ivs = new Set<string>();
    const blobs = [];
    for (let i = 0; i < count; i++) {
      const blob = ring.encrypt(plaintext);
      expect(blob.data.length).toBe(IV_BYTES + plaintext.length + TAG_BYTES);
      ivs.add(Buffer.from(blob.data.subarray(0, IV_BYTES)).toString('hex'));
      blobs.push(blob);
    }
    expect(ivs.size).toBe(count);
    // One fill per IVS_PER_FILL payloads, not one per payload: the first fill happens here.
    expect(fill).toHaveBeenCalledTimes(3);
    for (const blob of blobs) expect(Buffer.from(ring.decrypt(blob))).toEqual(plaintext);
  });

  test('a refill does not change an IV already written into an earlier blob', () => {
    const ring = new EncryptionKeyRing([{ id: 'k1', key: generateKey() }]);
    const first = ring.encrypt(Buffer.from('first'));
    const before = Buffer.from(first.data);
    for (let i = 0; i < IVS_PER_FILL + 1; i++) ring.encrypt(Buffer.from('more'));
    expect(Buffer.from(first.data)).toEqual(before);
    expect(Buffer.from(ring.decrypt(first)).toString()).toBe('first');
  });
});
