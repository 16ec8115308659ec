// The Temporal dev server of `tideline dev`: `temporal server start-dev` bound to 127.0.0.1, with
// the Web UI on, optionally persisted to a SQLite file, supervised so it never outlives the CLI.
import { Connection } from '@temporalio/client';
import { LOOPBACK } from './ports';
import { spawnSupervised, type SupervisedProcess } from './supervised-process';

export interface DevServerOptions {
  executable: string;
  port: number;
  uiPort: number;
  /** SQLite file that keeps workflows and schedules across restarts; in memory when absent. */
  dbFile?: string | undefined;
  /** The namespace to use; created at start unless it is `default` (which always exists). */
  namespace?: string;
  /** How long to wait until the frontend answers. Default 90 s. */
  startTimeoutMs?: number;
}

export interface DevServer {
  readonly address: string;
  readonly webUiUrl: string;
  readonly process: SupervisedProcess;
  stop(): Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once the frontend answers and `namespace` exists (it appears a moment after the port opens). */
async function waitUntilReady(
  address: string,
  namespace: string,
  server: SupervisedProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!server.isRunning()) {
      throw new Error(`the Temporal dev server exited while starting:\n${server.output().slice(-2000)}`);
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
    await sleep(250);
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(`the Temporal dev server at ${address} did not answer in time (${reason})`);
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const address = `${LOOPBACK}:${options.port}`;
  const args = [
    'server',
    'start-dev',
    '--ip',
    LOOPBACK,
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--log-level',
    'warn',
  ];
  if (options.dbFile !== undefined) args.push('--db-filename', options.dbFile);
  const namespace = options.namespace ?? 'default';
  if (namespace !== 'default') args.push('--namespace', namespace);
  const server = spawnSupervised(options.executable, args);
  try {
    await waitUntilReady(address, namespace, server, options.startTimeoutMs ?? 90_000);
  } catch (error) {
    await server.stop(5_000);
    throw error;
  }
  return {
    address,
    webUiUrl: `http://${LOOPBACK}:${options.uiPort}`,
    process: server,
    async stop() {
      await server.stop();
    },
  };
}
