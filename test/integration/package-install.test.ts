// The package as users get it: `npm pack` of this checkout, installed with `npm install -g` into a
// fresh prefix, then run from there (outside the checkout, with its own HOME): `--help`,
// `validate` of a shipped runbook, `tideline dev` with a `tideline run` against it, and the
// Docker image's command (`node dist/worker/main.js`) as a worker of that stack. The Temporal CLI
// comes from the per-user cache (~/.cache/tideline/bin), pre-seeded with a link to the checkout's
// build so no Go build runs; the test checks that the installed CLI used that cache and wrote
// nothing into the installed package.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readTemporalPath } from '../../scripts/setup-temporal';
import { buildDist } from '../helpers/worker-process';

jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '..', '..');
const PACKAGE = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };

interface PackedFile {
  path: string;
}
interface PackResult {
  filename: string;
  size: number;
  entryCount: number;
  files: PackedFile[];
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A process in its own group (so the whole group can be stopped), with its output collected. */
interface Started {
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs: number): Promise<string>;
  done: Promise<Exit>;
}

function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Started {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const text = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]?.on('data', (chunk: Buffer) => {
      text[stream] += chunk.toString('utf8');
      for (const listener of listeners) listener();
    });
  }
  const done = new Promise<Exit>((resolve) => {
    child.once('close', (code) => {
      for (const listener of listeners) listener();
      resolve({ code, ...text });
    });
  });
  const waitFor = (stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new Error(`no ${pattern} on ${stream} in ${timeoutMs} ms`)),
        timeoutMs,
      );
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        listeners.delete(check);
        if (error) reject(new Error(`${error.message}\nstdout: ${text.stdout}\nstderr: ${text.stderr}`));
        else resolve(text[stream]);
      };
      const check = (): void => {
        if (pattern.test(text[stream])) finish();
        else if (child.exitCode !== null || child.signalCode !== null) finish(new Error('the process ended'));
      };
      listeners.add(check);
      check();
    });
  return { child, output: () => ({ ...text }), waitFor, done };
}

/**
 * Stops a started process group (SIGTERM, then SIGKILL after a grace period). Once its leader has
 * exited its group id may belong to another process group (ids are reused), so it is left alone.
 */
async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.pid === undefined) return;
  if (started.child.exitCode !== null || started.child.signalCode !== null) return;
  const pid = started.child.pid;
  const kill = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  kill('SIGTERM');
  const timer = setTimeout(() => kill('SIGKILL'), 15_000);
  await started.done;
  clearTimeout(timer);
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Exit {
  const result = spawnSync(command, args, { ...options, encoding: 'utf8', timeout: 240_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** PATH without folders that hold a `temporal` executable, so only the cache can provide it. */
function pathWithoutTemporal(): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '' && !existsSync(path.join(dir, 'temporal')))
    .join(path.delimiter);
}

describe('the npm package, installed into a fresh prefix', () => {
  let dir: string;
  let packed: PackResult;
  let prefix: string;
  let installed: string;
  let tideline: string;
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // dist/ is built under the test helpers' lock (other suites use it), so `npm pack` skips its
    // own prepack build here.
    await buildDist();
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-package-'));
    const pack = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: REPO,
      env: process.env,
    });
    expect({ code: pack.code, stderr: pack.code === 0 ? '' : pack.stderr }).toEqual({ code: 0, stderr: '' });
    packed = (JSON.parse(pack.stdout) as PackResult[])[0] as PackResult;

    prefix = path.join(dir, 'prefix');
    const install = run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        path.join(dir, packed.filename),
      ],
      { cwd: dir, env: process.env },
    );
    expect({ code: install.code, stderr: install.code === 0 ? '' : install.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    installed = path.join(prefix, 'lib', 'node_modules', 'tideline');
    tideline = path.join(prefix, 'bin', 'tideline');

    // The installed CLI's environment: a fresh HOME (its per-user cache and key file), nothing from
    // this shell's TIDELINE_* / TEMPORAL_* / XDG_CACHE_HOME, and no `temporal` on PATH.
    home = path.join(dir, 'home');
    const cacheBin = path.join(home, '.cache', 'tideline', 'bin');
    mkdirSync(cacheBin, { recursive: true });
    symlinkSync(readTemporalPath(), path.join(cacheBin, 'temporal'));
    env = { NO_COLOR: '1' };
    for (const [name, value] of Object.entries(process.env)) {
      if (!/^(TIDELINE_|TEMPORAL_|XDG_CACHE_HOME$|FORCE_COLOR$)/.test(name)) env[name] = value;
    }
    env.HOME = home;
    env.PATH = pathWithoutTemporal();
    env.TIDELINE_ENCRYPTION_KEYS = `package-test:${randomBytes(32).toString('base64')}`;
  }, 600_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('ships the compiled CLI, worker, workflow bundle, runbooks and schema; no sources or tests', () => {
    const files = packed.files.map((file) => file.path);
    for (const needed of [
      'package.json',
      'README.md',
      'bin/tideline.js',
      'dist/cli/main.js',
      'dist/worker/main.js',
      'dist/workflow-bundle.js',
      'scripts/setup-temporal.js',
      'scripts/tools-dir.js',
      'schema/runbook.schema.json',
      'runbooks/provision-production-service.yaml',
    ]) {
      expect(files).toContain(needed);
    }
    const strays = files.filter(
      (file) =>
        /\.ts$/.test(file) ||
        /^(test|bench|\.tools|node_modules)\//.test(file) ||
        file === 'dist/.tsbuildinfo' ||
        /^tsconfig/.test(file),
    );
    expect(strays).toEqual([]);
    expect(readdirSync(installed).sort()).toEqual(
      ['README.md', 'bin', 'dist', 'node_modules', 'package.json', 'runbooks', 'schema', 'scripts'].sort(),
    );
  });

  test('tideline --help, --version and validate of a shipped runbook run from the prefix', () => {
    const help = run(tideline, ['--help'], { cwd: dir, env });
    expect(help.code).toBe(0);
    for (const command of ['run', 'validate', 'dev', 'worker', 'status']) {
      expect(help.stdout).toMatch(new RegExp(`^ {2}${command}\\s`, 'm'));
    }
    const version = run(tideline, ['--version'], { cwd: dir, env });
    expect(version.stdout.trim()).toBe(`tideline ${PACKAGE.version}`);

    const runbook = path.join(installed, 'runbooks', 'provision-production-service.yaml');
    const validate = run(tideline, ['validate', runbook], { cwd: dir, env });
    expect({
      code: validate.code,
      output: validate.code === 0 ? '' : validate.stdout + validate.stderr,
    }).toEqual({
      code: 0,
      output: '',
    });
  });

  test('tideline dev (Temporal from the per-user cache), tideline run against it, and the image command as a worker', async () => {
    let dev: Started | undefined;
    let worker: Started | undefined;
    try {
      dev = start(tideline, ['dev', '--port', '0', '--json'], { cwd: dir, env });
      const first = (await dev.waitFor('stdout', /\n/, 180_000)).split('\n')[0] ?? '';
      const info = JSON.parse(first) as {
        temporal: { address: string };
        cloud: { url: string; projects: { id: string; access_key: string; secret_key: string }[] };
      };
      const project = info.cloud.projects[0];
      expect(project).toBeDefined();

      const runbook = path.join(installed, 'runbooks', 'stop-dev-services.yaml');
      const result = run(
        tideline,
        ['run', runbook, '-i', `project_id=${project!.id}`, '--address', info.temporal.address, '--json'],
        { cwd: dir, env },
      );
      expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
        code: 0,
        stderr: '',
      });
      expect(JSON.parse(result.stdout)).toMatchObject({ runbook: 'stop-dev-services', status: 'succeeded' });

      // The Dockerfile's CMD, `node dist/worker/main.js` in the package folder, polls the stack.
      worker = start(process.execPath, ['dist/worker/main.js'], {
        cwd: installed,
        env: {
          ...env,
          TEMPORAL_ADDRESS: info.temporal.address,
          TIDELINE_CLOUD_URL: info.cloud.url,
          TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
          TIDELINE_CLOUD_PROJECT_ID: project!.id,
          TIDELINE_CLOUD_ACCESS_KEY: project!.access_key,
          TIDELINE_CLOUD_SECRET_KEY: project!.secret_key,
        },
      });
      await worker.waitFor('stderr', /tideline worker ready/, 120_000);
      worker.child.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);

      dev.child.kill('SIGINT');
      const stopped = await dev.done;
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toContain('tideline dev: stopped');

      // The Temporal CLI was found in (and recorded to) the per-user cache, not the package folder.
      const cache = path.join(home, '.cache', 'tideline');
      expect(readFileSync(path.join(cache, 'temporal-path'), 'utf8').trim()).toBe(
        path.join(cache, 'bin', 'temporal'),
      );
      expect(existsSync(path.join(installed, '.tools'))).toBe(false);
    } finally {
      await stop(worker);
      await stop(dev);
    }
  });
});
