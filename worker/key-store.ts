// Where the payload encryption keys come from, in order:
//   1. TIDELINE_ENCRYPTION_KEYS="id1:base64key,id2:base64key" (first = current),
//   2. the key file named by TIDELINE_KEY_FILE (it must exist),
//   3. ~/.tideline/keys.json, generated with a fresh development key on first use
//      (directory 0700, file 0600), with a one-line notice.
// Every client and worker that shares a Temporal namespace must load the same keys.
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { EncryptionKeyRing, generateKey, parseKeyFile, parseKeyList } from './encryption-keys';
import { WorkerError } from './errors';
import { warnIfOpenToOthers } from './file-permissions';

export type KeySource = 'env' | 'file' | 'generated';

export interface LoadedKeys {
  keyRing: EncryptionKeyRing;
  source: KeySource;
  /** The key file used or generated (absent when the keys came from the environment). */
  file?: string;
}

export interface LoadKeysOptions {
  env?: NodeJS.ProcessEnv;
  /** Home directory for the default key file; defaults to the user's home. */
  homeDir?: string;
  /** Receives one-line notices (a generated key, loose permissions). Default: stderr. */
  notice?: (line: string) => void;
}

/** The user's tideline folder: the encryption keys and the approval keys live in it. */
export function userTidelineDir(homeDir: string = homedir()): string {
  return path.join(homeDir, '.tideline');
}

export function defaultKeyFile(homeDir: string = homedir()): string {
  return path.join(userTidelineDir(homeDir), 'keys.json');
}

function stderrNotice(line: string): void {
  process.stderr.write(`${line}\n`);
}

function readKeyFile(file: string, notice: (line: string) => void): EncryptionKeyRing {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new WorkerError('TIDELINE_KEY_FILE_INVALID', `cannot read key file ${file} (${reason})`);
  }
  warnIfOpenToOthers(file, 'key file', notice);
  return parseKeyFile(content, file);
}

/**
 * Writes a new key file without ever exposing a half-written one: the content goes to a private
 * temporary file that is then hard-linked into place. `link` fails if the file appeared in the
 * meantime (another process generated it first), and then that file wins.
 */
function createKeyFile(file: string): boolean {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keyId = `dev-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${generateKey().toString('hex').slice(0, 6)}`;
  const content = {
    current: keyId,
    keys: [{ id: keyId, key: generateKey().toString('base64'), createdAt: new Date().toISOString() }],
  };
  const tmp = path.join(dir, `.keys-${process.pid}-${Date.now()}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(tmp);
  }
}

export function loadEncryptionKeys(options: LoadKeysOptions = {}): LoadedKeys {
  const env = options.env ?? process.env;
  const notice = options.notice ?? stderrNotice;

  const list = env.TIDELINE_ENCRYPTION_KEYS;
  if (list !== undefined && list.trim() !== '') {
    return { keyRing: parseKeyList(list), source: 'env' };
  }

  const explicitFile = env.TIDELINE_KEY_FILE;
  if (explicitFile !== undefined && explicitFile.trim() !== '') {
    const file = path.resolve(explicitFile);
    if (!existsSync(file)) {
      throw new WorkerError(
        'TIDELINE_KEY_FILE_INVALID',
        `TIDELINE_KEY_FILE names ${file}, which does not exist (unset it to use a generated development key)`,
      );
    }
    return { keyRing: readKeyFile(file, notice), source: 'file', file };
  }

  const file = defaultKeyFile(options.homeDir);
  if (existsSync(file)) return { keyRing: readKeyFile(file, notice), source: 'file', file };
  const created = createKeyFile(file);
  const keyRing = readKeyFile(file, notice);
  if (!created) return { keyRing, source: 'file', file };
  notice(
    `tideline: generated a development encryption key in ${file} ` +
      '(set TIDELINE_ENCRYPTION_KEYS or TIDELINE_KEY_FILE to share keys between machines)',
  );
  return { keyRing, source: 'generated', file };
}
