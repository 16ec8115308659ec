// A Temporal dev server for benchmarks on a free 127.0.0.1 port, optionally on a SQLite file so it
// can be restarted (chaos round two) without losing workflows. Runs under the test suite's guard
// shell, so it never outlives the benchmark.
import { createServer } from 'node:net';
import type { Connection } from '@temporalio/client';
import { spawnGuarded, type GuardedProcess } from '../../test/helpers/guarded-process';
import { temporalExecutable } from './repo';
import { sleep } from './stats';
import { connectClient, localConnectionSettings } from '../../worker/connection';
import { TIDELINE_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

export interface DevServer {
  readonly address: string;
  /** The guard's pid (its process group holds the server). */
  pid(): number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

async function waitUntilServing(address: string, alive: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`Temporal dev server at ${address} exited while starting`);
    let connection: Connection | undefined;
    try {
      connection = await connectClient(localConnectionSettings(address), { connectTimeout: 2_000 });
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await sleep(200);
  }
  throw new Error(`Temporal dev server at ${address} not ready in ${timeoutMs} ms: ${String(lastError)}`);
}

export interface DevServerOptions {
  dbFile?: string;
  /** Server settings (`--dynamic-config-value key=value`), e.g. eager activity dispatch. */
  dynamicConfig?: Record<string, string | number | boolean>;
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const executable = temporalExecutable();
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port)];
  args.push('--log-level', 'error');
  // Workers refuse a namespace without tideline's search attributes (worker/namespace-check.ts).
  for (const { name, type } of TIDELINE_SEARCH_ATTRIBUTES) args.push('--search-attribute', `${name}=${type}`);
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {}))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  let current: GuardedProcess | undefined;

  const server: DevServer = {
    address,
    pid: () => current?.pid ?? 0,
    async start() {
      if (current?.isRunning()) return;
      const started = spawnGuarded(executable, args, { label: `temporal dev server ${address}` });
      current = started;
      try {
        await waitUntilServing(address, () => started.isRunning(), 90_000);
      } catch (error) {
        await started.kill();
        throw new Error(`${(error as Error).message}\n${started.output().slice(-2000)}`);
      }
    },
    async stop() {
      await current?.stop();
    },
  };
  await server.start();
  return server;
}
