// A Temporal dev server for tests, on free 127.0.0.1 ports, that can be stopped, killed and
// restarted on the same port and the same database file (for durability tests).
//
//   const server = await startTemporalServer({ dbFile });   // dbFile optional: in-memory otherwise
//   const connection = await Connection.connect({ address: server.address });
//   await server.restart();                                 // same port, same history
//   await server.stop();
//
// The `temporal` CLI is the one `scripts/setup-temporal.js` resolved (run by `pretest`).
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { readTemporalPath } from '../../scripts/setup-temporal';
import { spawnGuarded, type GuardedProcess, type ProcessExit } from './guarded-process';

export interface TemporalServerOptions {
  /** SQLite file that keeps workflows across restarts. Default: in memory (lost on stop). */
  dbFile?: string;
  /** Frontend gRPC port. Default: a free port, kept across restarts. */
  port?: number;
  /** Namespaces to create besides `default`. */
  namespaces?: string[];
  /** Search attributes to register, e.g. `{ TidelineRunbook: 'Keyword' }`. */
  searchAttributes?: Record<string, string>;
  /** The `temporal` executable. Default: the one recorded by the setup script. */
  executable?: string;
  /** How long to wait for the server to answer. Default 60 s (two busy cores). */
  startTimeoutMs?: number;
}

export interface TemporalServer {
  /** `127.0.0.1:<port>`, for `Connection.connect({ address })` and `NativeConnection.connect`. */
  readonly address: string;
  readonly port: number;
  readonly namespace: 'default';
  readonly dbFile: string | undefined;
  isRunning(): boolean;
  /** Output of the current (or last) server process. */
  output(): string;
  /** Graceful stop (SIGTERM); resolves once the process has exited. */
  stop(): Promise<void>;
  /** Hard kill (SIGKILL): nothing is flushed beyond what SQLite already committed. */
  kill(): Promise<ProcessExit>;
  /** Starts it again (after stop or kill) on the same port and database, and waits until ready. */
  start(): Promise<void>;
  /** stop() + start(). */
  restart(): Promise<void>;
}

/** A port that was free a moment ago on 127.0.0.1. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not find a free port'));
      });
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until the frontend answers and the namespace exists (it is registered while the server
 * starts, a moment after the port opens).
 */
export async function waitForTemporal(
  address: string,
  options: { namespace?: string; timeoutMs?: number; isAlive?: () => boolean; describe?: () => string } = {},
): Promise<void> {
  const namespace = options.namespace ?? 'default';
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (options.isAlive && !options.isAlive()) {
      throw new Error(`Temporal server at ${address} exited while starting\n${options.describe?.() ?? ''}`);
    }
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.workflowService.describeNamespace({ namespace });
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await sleep(200);
  }
  throw new Error(
    `Temporal server at ${address} was not ready in time: ${String(lastError)}\n${options.describe?.() ?? ''}`,
  );
}

export async function startTemporalServer(options: TemporalServerOptions = {}): Promise<TemporalServer> {
  const executable = options.executable ?? readTemporalPath();
  const port = options.port ?? (await findFreePort());
  const address = `127.0.0.1:${port}`;
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'warn',
  ];
  if (options.dbFile !== undefined) args.push('--db-filename', options.dbFile);
  for (const namespace of options.namespaces ?? []) args.push('--namespace', namespace);
  for (const [name, type] of Object.entries(options.searchAttributes ?? {})) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  // The HTTP API and metrics ports default to random free ports; the UI is off (--headless).
  let current: GuardedProcess | undefined;

  const start = async (): Promise<void> => {
    if (current?.isRunning()) return;
    const serverProcess = spawnGuarded(executable, args, { label: `temporal dev server (${address})` });
    current = serverProcess;
    try {
      await waitForTemporal(address, {
        timeoutMs: options.startTimeoutMs ?? 60_000,
        isAlive: () => serverProcess.isRunning(),
        describe: () => serverProcess.output().slice(-4000),
      });
    } catch (error) {
      await serverProcess.kill();
      throw error;
    }
  };
  const stop = async (): Promise<void> => {
    await current?.stop();
  };

  await start();
  return {
    address,
    port,
    namespace: 'default',
    dbFile: options.dbFile,
    isRunning: () => current?.isRunning() ?? false,
    output: () => current?.output() ?? '',
    stop,
    kill: async () => (current ? current.kill() : { code: null, signal: null }),
    start,
    restart: async () => {
      await stop();
      await start();
    },
  };
}

/**
 * The SDK's test environment (client, native connection, dev server it manages) on the binary the
 * setup script resolved, bound to 127.0.0.1. Call `env.teardown()` when done. Use
 * `startTemporalServer` instead when the server must be stopped and restarted.
 */
export function createLocalTestEnvironment(
  options: { executable?: string } = {},
): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: options.executable ?? readTemporalPath() },
      ip: '127.0.0.1',
    },
  });
}
