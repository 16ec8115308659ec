// A Temporal dev server for tests, on free 127.0.0.1 ports, that can be stopped, killed and
// restarted on the same port and the same database file (for durability tests).
//
//   const server = await startTemporalServer({ dbFile });   // dbFile optional: in-memory otherwise
//   const connection = await Connection.connect({ address: server.address });
//   await server.restart();                                 // same port, same history
//   await server.stop();
//
// The `temporal` CLI is the one `scripts/setup-temporal.js` resolved (run by `pretest`). The
// server is launched (arguments, readiness) as `tideline dev` launches its own, headless here.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findFreePort } from '../../cli/dev-stack/ports';
import { launchDevServer } from '../../cli/dev-stack/temporal-dev-server';
import { readTemporalPath } from '../../scripts/setup-temporal';
import {
  PROJECT_ATTRIBUTE,
  RUNBOOK_ATTRIBUTE,
  SERVICES_ATTRIBUTE,
  STATE_ATTRIBUTE,
  TIDELINE_SEARCH_ATTRIBUTES,
} from '../../workflows/search-attributes';
import { spawnGuarded, type GuardedProcess, type ProcessExit } from './guarded-process';

/** tideline's search attributes as `--search-attribute` name → type. */
export const TIDELINE_ATTRIBUTE_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  TIDELINE_SEARCH_ATTRIBUTES.map(({ name, type }) => [name, type]),
);

export { findFreePort };

export interface TemporalServerOptions {
  /** SQLite file that keeps workflows across restarts. Default: in memory (lost on stop). */
  dbFile?: string;
  /** Frontend gRPC port. Default: a free port, kept across restarts. */
  port?: number;
  /** Namespaces to create besides `default`. */
  namespaces?: string[];
  /**
   * Search attributes to register, e.g. `{ TidelineRunbook: 'Keyword' }`. Default: tideline's
   * (workflows/search-attributes.ts), so every run upserts them as in production; `{}` for a server
   * without them.
   */
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

export async function startTemporalServer(options: TemporalServerOptions = {}): Promise<TemporalServer> {
  const executable = options.executable ?? readTemporalPath();
  const port = options.port ?? (await findFreePort());
  const address = `127.0.0.1:${port}`;
  let current: GuardedProcess | undefined;

  const start = async (): Promise<void> => {
    if (current?.isRunning()) return;
    await launchDevServer(
      {
        executable,
        port,
        dbFile: options.dbFile,
        namespaces: options.namespaces,
        searchAttributes: options.searchAttributes ?? TIDELINE_ATTRIBUTE_TYPES,
        startTimeoutMs: options.startTimeoutMs ?? 60_000,
      },
      (command, args) =>
        (current = spawnGuarded(command, args, { label: `temporal dev server (${address})` })),
    );
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
      searchAttributes: [RUNBOOK_ATTRIBUTE, PROJECT_ATTRIBUTE, SERVICES_ATTRIBUTE, STATE_ATTRIBUTE],
    },
  });
}
