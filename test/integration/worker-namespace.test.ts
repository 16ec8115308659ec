// A worker pointed at a namespace that does not exist stops at once with one line that says what
// is wrong and how to fix it (before: it printed the SDK's gRPC dump and kept the process alive).
// Both entry points: `node dist/worker/main.js` (npm run worker) and `tideline worker`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { buildDist, REPO_ROOT, WORKER_ENTRY, workerEnvironment } from '../helpers/worker-process';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server';

const SECRET_KEY = `sk-${randomBytes(10).toString('hex')}`;
/** Generous: the worker needs about a second; two busy cores may need much longer. */
const EXIT_BOUND_MS = 45_000;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the command to its end; a process still alive after the bound is killed and reported. */
function runToEnd(args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const began = Date.now();
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const bound = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${EXIT_BOUND_MS} ms; stderr so far:\n${stderr}`));
    }, EXIT_BOUND_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(bound);
      resolve({ code, stdout, stderr, ms: Date.now() - began });
    });
  });
}

describe('a worker whose namespace does not exist', () => {
  let server: TemporalServer;
  let env: NodeJS.ProcessEnv;
  const namespace = `missing-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    await buildDist();
    server = await startTemporalServer();
    env = workerEnvironment({
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: namespace,
      TIDELINE_TASK_QUEUE: `ns-${randomBytes(4).toString('hex')}`,
      // Nothing listens there; the worker stops before any activity could run.
      TIDELINE_CLOUD_URL: 'http://127.0.0.1:9/public/api/v1',
      TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
      TIDELINE_CLOUD_PROJECT_ID: 'proj000001',
      TIDELINE_CLOUD_ACCESS_KEY: 'AK-test',
      TIDELINE_CLOUD_SECRET_KEY: SECRET_KEY,
    });
  }, 240_000);
  afterAll(async () => server?.stop());

  const expectOneClearLine = (finished: Finished) => {
    expect(finished.code).toBe(2);
    const lines = finished.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toEqual([
      `tideline worker: namespace "${namespace}" does not exist on Temporal at ${server.address}; ` +
        `create it (temporal operator namespace create --namespace ${namespace}) or set ` +
        `TEMPORAL_NAMESPACE to an existing namespace`,
    ]);
    expect(finished.stdout).toBe('');
    expect(finished.stderr).not.toContain(SECRET_KEY);
  };

  test('npm run worker (dist/worker/main.js) exits 2 with one line', async () => {
    expectOneClearLine(await runToEnd([WORKER_ENTRY], env));
  }, 60_000);

  test('tideline worker exits 2 with one line', async () => {
    expectOneClearLine(await runToEnd([path.join(REPO_ROOT, 'bin', 'tideline.js'), 'worker'], env));
  }, 60_000);
});
