// A worker config file that holds a Cloud API secret key and that other users can read gets the
// same one-line warning as a loose keys.json (worker/file-permissions.ts); a private file, or one
// without a secret, gets none. The CLI (`--config`, cli/settings.ts) warns in the same words, once.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { resolveSettings } from '../../cli/settings';
import { loadWorkerConfig } from '../../worker/config';
import { loadEncryptionKeys } from '../../worker/key-store';

const WITH_SECRET = JSON.stringify({
  cloud: { baseUrl: 'https://api.example.com/v1', projects: { p1: { accessKey: 'ak', secretKey: 'sk-1' } } },
});
const WITHOUT_SECRET = JSON.stringify({ taskQueue: 'q', cloud: { baseUrl: 'https://api.example.com/v1' } });
const CREDENTIALS = {
  TIDELINE_CLOUD_PROJECT_ID: 'p1',
  TIDELINE_CLOUD_ACCESS_KEY: 'ak',
  TIDELINE_CLOUD_SECRET_KEY: 'sk-env',
};

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'tideline-config-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function notices(name: string, content: string, mode: number, env: NodeJS.ProcessEnv = {}): string[] {
  const file = join(dir, name);
  writeFileSync(file, content);
  chmodSync(file, mode);
  const lines: string[] = [];
  loadWorkerConfig({ env: { TIDELINE_CONFIG: file, ...env }, notice: (line) => lines.push(line) });
  return lines;
}

const onPosix = process.platform === 'win32' ? it.skip : it;

onPosix('a secret key in a file readable by others: one warning, worded like the key file one', () => {
  const file = join(dir, 'open.json');
  expect(notices('open.json', WITH_SECRET, 0o644)).toEqual([
    `tideline: warning: config file ${file} (it holds a Cloud API secret key) is readable by other users; run: chmod 600 ${file}`,
  ]);
  const keys = join(dir, 'keys.json');
  writeFileSync(
    keys,
    JSON.stringify({ current: 'k', keys: [{ id: 'k', key: Buffer.alloc(32).toString('base64') }] }),
  );
  chmodSync(keys, 0o640);
  const keyNotices: string[] = [];
  loadEncryptionKeys({ env: { TIDELINE_KEY_FILE: keys }, notice: (line) => keyNotices.push(line) });
  expect(keyNotices).toEqual([
    `tideline: warning: key file ${keys} is readable by other users; run: chmod 600 ${keys}`,
  ]);
});

onPosix('a notification webhook URL is a secret too: the same warning, naming it', () => {
  const file = join(dir, 'webhook.json');
  const content = JSON.parse(WITHOUT_SECRET) as Record<string, unknown>;
  content.notifications = { targets: { ops: { type: 'webhook', url: 'https://hooks.example.com/x' } } };
  expect(notices('webhook.json', JSON.stringify(content), 0o644, CREDENTIALS)).toEqual([
    `tideline: warning: config file ${file} (it holds a notification webhook URL) is readable by other users; run: chmod 600 ${file}`,
  ]);
});

onPosix('no warning for a private file, or for a file without a secret', () => {
  expect(notices('private.json', WITH_SECRET, 0o600)).toEqual([]);
  expect(notices('public.json', WITHOUT_SECRET, 0o644, CREDENTIALS)).toEqual([]);
});

onPosix('the CLI warns about the same file in the same words, once per command, only when it is open', () => {
  const file = join(dir, 'cli-open.json');
  const [workerLine] = notices('cli-open.json', WITH_SECRET, 0o644);
  let err = '';
  const stderr = new PassThrough();
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const ctx = { globals: { json: false, config: file }, env: {}, cwd: dir, stderr };
  resolveSettings(ctx);
  resolveSettings(ctx);
  expect(err).toBe(`${workerLine}\n`);
  chmodSync(file, 0o600);
  const quiet = { ...ctx, stderr: new PassThrough() };
  let quietErr = '';
  quiet.stderr.on('data', (chunk: Buffer) => (quietErr += chunk.toString()));
  resolveSettings(quiet);
  expect(quietErr).toBe('');
  writeFileSync(join(dir, 'cli-public.json'), WITHOUT_SECRET);
  chmodSync(join(dir, 'cli-public.json'), 0o644);
  resolveSettings({ ...quiet, globals: { json: false, config: join(dir, 'cli-public.json') } });
  expect(quietErr).toBe('');
});
