import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultKeyFile, loadEncryptionKeys } from '../../worker/key-store';

describe('loadEncryptionKeys', () => {
  let home: string;
  let notices: string[];
  const notice = (line: string): void => {
    notices.push(line);
  };

  beforeEach(() => {
    home = mkdtempSync(path.join(tmpdir(), 'tideline-keys-'));
    notices = [];
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  test('generates a dev key on first use: dir 0700, file 0600, one notice; reuses it after', () => {
    const first = loadEncryptionKeys({ env: {}, homeDir: home, notice });
    const file = defaultKeyFile(home);
    expect(first.source).toBe('generated');
    expect(first.file).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(file);
    expect(notices[0]).not.toContain(JSON.parse(readFileSync(file, 'utf8')).keys[0].key);

    const second = loadEncryptionKeys({ env: {}, homeDir: home, notice });
    expect(second.source).toBe('file');
    expect(second.keyRing.currentKeyId).toBe(first.keyRing.currentKeyId);
    expect(notices).toHaveLength(1);
    // Same key material: what one encrypts the other decrypts.
    const blob = first.keyRing.encrypt(Buffer.from('hello'));
    expect(Buffer.from(second.keyRing.decrypt(blob)).toString()).toBe('hello');
  });

  test('TIDELINE_ENCRYPTION_KEYS wins over files and writes nothing', () => {
    const env = { TIDELINE_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` };
    const loaded = loadEncryptionKeys({ env, homeDir: home, notice });
    expect(loaded.source).toBe('env');
    expect(loaded.keyRing.currentKeyId).toBe('k1');
    expect(() => statSync(defaultKeyFile(home))).toThrow();
  });

  test('TIDELINE_KEY_FILE: current key chosen by "current"; loose permissions warned about', () => {
    const file = path.join(home, 'team-keys.json');
    writeFileSync(
      file,
      JSON.stringify({
        current: 'new',
        keys: [
          { id: 'old', key: randomBytes(32).toString('base64') },
          { id: 'new', key: randomBytes(32).toString('base64') },
        ],
      }),
    );
    chmodSync(file, 0o644);
    const loaded = loadEncryptionKeys({ env: { TIDELINE_KEY_FILE: file }, homeDir: home, notice });
    expect(loaded).toMatchObject({ source: 'file', file });
    expect(loaded.keyRing.currentKeyId).toBe('new');
    expect(loaded.keyRing.keyIds.sort()).toEqual(['new', 'old']);
    expect(notices.join('\n')).toMatch(/chmod 600/);
  });

  test('a missing TIDELINE_KEY_FILE is an error, not a silently generated key', () => {
    const file = path.join(home, 'nope.json');
    expect(() => loadEncryptionKeys({ env: { TIDELINE_KEY_FILE: file }, homeDir: home, notice })).toThrow(
      expect.objectContaining({ code: 'TIDELINE_KEY_FILE_INVALID', message: expect.stringContaining(file) }),
    );
  });

  test.each([
    ['not JSON', '{', /not valid JSON/],
    ['no keys', '{"keys": []}', /at least one key/],
    [
      'a short key',
      JSON.stringify({ keys: [{ id: 'a', key: 'c2hvcnQ=' }] }),
      /keys\.0\.key: a key must be base64 of exactly 32 bytes/,
    ],
    [
      'an unknown current',
      JSON.stringify({ current: 'b', keys: [{ id: 'a', key: randomBytes(32).toString('base64') }] }),
      /current key id "b"/,
    ],
  ])('a key file with %s fails with TIDELINE_KEY_FILE_INVALID', (_label, content, message) => {
    mkdirSync(path.join(home, '.tideline'), { mode: 0o700 });
    writeFileSync(defaultKeyFile(home), content, { mode: 0o600 });
    let caught: unknown;
    try {
      loadEncryptionKeys({ env: {}, homeDir: home, notice });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'TIDELINE_KEY_FILE_INVALID' });
    expect((caught as Error).message).toMatch(message);
  });
});
