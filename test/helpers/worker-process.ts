// The tideline worker as a separate OS process (dist/worker/main.js), for tests that SIGKILL or
// SIGTERM it. The compiled code is built once per test process (under a lock shared by all Jest
// workers of the checkout), including the prebuilt workflow bundle.
//
//   await buildDist();
//   const worker = await startWorkerProcess({ env: { TEMPORAL_ADDRESS: server.address, ...cloudEnv } });
//   await worker.kill();           // SIGKILL: a crash
//   await worker.stop();           // SIGTERM: graceful, exit code 0
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  startWorkerProcess as launchWorkerProcess,
  WORKER_READY,
  workerProcessEnv,
} from '../../stack/worker-process';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import { spawnGuarded, type GuardedProcess } from './guarded-process';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const WORKER_ENTRY = path.join(REPO_ROOT, 'dist', 'worker', 'main.js');
/** Printed by worker/main.ts once the worker is about to poll. */
export { WORKER_READY };

const TEST_KEY = randomBytes(32);
/** Encryption keys for workers started by tests (one per test process); clients use `testKeyRing`. */
export const TEST_ENCRYPTION_KEYS = `test-${process.pid}:${TEST_KEY.toString('base64')}`;
export const testKeyRing = new EncryptionKeyRing([{ id: `test-${process.pid}`, key: TEST_KEY }]);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Two Jest workers must not run tsc into the same dist/ at once. */
async function withBuildLock<T>(action: () => Promise<T>): Promise<T> {
  const lockDir = path.join(REPO_ROOT, '.tools', 'dist-build.lock');
  const ownerFile = path.join(lockDir, 'pid');
  mkdirSync(path.dirname(lockDir), { recursive: true });
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(ownerFile, String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(existsSync(ownerFile) ? readFileSync(ownerFile, 'utf8') : '', 10);
      if (Number.isInteger(owner) && !processIsAlive(owner)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lockDir}`);
      await sleep(250);
    }
  }
  try {
    return await action();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

let built: Promise<void> | undefined;

/**
 * Compiles the sources into dist/ (incremental `tsc -p tsconfig.build.json`) and pre-bundles the
 * workflows, once per test process. Type errors elsewhere in the tree do not stop it as long as
 * the worker entry was emitted (`npm test` type-checks separately); a failed bundle only means
 * workers bundle at start.
 */
export function buildDist(): Promise<void> {
  // Jest's global setup (scripts/jest-global-setup.js) already built both for this run.
  if (process.env.TIDELINE_TEST_DIST_BUILT === '1') built ??= Promise.resolve();
  built ??= withBuildLock(async () => {
    const tsc = await run([
      path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
    ]);
    if (!existsSync(WORKER_ENTRY)) {
      throw new Error(`building dist/ did not produce ${WORKER_ENTRY}:\n${tsc.output.slice(-4000)}`);
    }
    await run([path.join(REPO_ROOT, 'scripts', 'bundle-workflows.js')]);
  });
  return built;
}

export interface WorkerProcessOptions {
  /**
   * Worker environment: TEMPORAL_ADDRESS, TIDELINE_CLOUD_*, TIDELINE_TASK_QUEUE… Inherited
   * TEMPORAL_* and TIDELINE_* variables are dropped first, so only what the test sets applies.
   * TIDELINE_ENCRYPTION_KEYS defaults to TEST_ENCRYPTION_KEYS.
   */
  env: NodeJS.ProcessEnv;
  /** Wait for the ready line; default true. */
  waitUntilReady?: boolean;
  readyTimeoutMs?: number;
}

export function workerEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return workerProcessEnv({ TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, ...env });
}

/** Starts `node dist/worker/main.js` (call buildDist() first) and waits until it is ready. */
export function startWorkerProcess(options: WorkerProcessOptions): Promise<GuardedProcess> {
  return launchWorkerProcess({
    entry: WORKER_ENTRY,
    env: { TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, ...options.env },
    cwd: REPO_ROOT,
    waitUntilReady: options.waitUntilReady,
    readyTimeoutMs: options.readyTimeoutMs,
    missingHint: 'call buildDist() first',
    spawn: spawnGuarded,
  });
}
