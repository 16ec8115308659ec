// A Temporal dev server for tests, on free 127.0.0.1 ports, that can be stopped, killed and
// restarted on the same port and the same database file (for durability tests).
//
//   const server = await startTemporalServer({ dbFile });   // dbFile optional: in-memory otherwise
//   const connection = await Connection.connect({ address: server.address });
//   await server.restart();                                 // same port, same history
//   await server.stop();
//
// The `temporal` CLI is the one `scripts/setup-temporal.js` resolved (run by `pretest`). The
// server is the shared local one (stack/local-temporal.ts), launched as `tideline dev`
// launches its own, headless here, its process on the tests' registry (guarded-process.ts).
import { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  startLocalTemporal,
  type LocalTemporal,
  type LocalTemporalOptions,
} from '../../stack/local-temporal';
import { findFreePort } from '../../stack/ports';
import { TIDELINE_ATTRIBUTE_TYPES } from '../../stack/temporal-dev-server';
import { readTemporalPath } from '../../scripts/setup-temporal';
import { spawnGuarded } from './guarded-process';

/** tideline's search attributes as `--search-attribute` name → type. */
export { TIDELINE_ATTRIBUTE_TYPES };

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
   * (contract/search-attributes.ts), so every run upserts them as in production; `{}` for a server
   * without them.
   */
  searchAttributes?: Record<string, string>;
  /** The `temporal` executable. Default: the one recorded by the setup script. */
  executable?: string;
  /** How long to wait for the server to answer. Default 60 s (two busy cores). */
  startTimeoutMs?: number;
  /** Server settings (`--dynamic-config-value`), e.g. when to suggest a continue-as-new. */
  dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * `address` (`127.0.0.1:<port>`) is for `Connection.connect({ address })` and
 * `NativeConnection.connect`; `kill()` flushes nothing beyond what SQLite already committed.
 */
export interface TemporalServer extends LocalTemporal {
  readonly namespace: 'default';
}

/** The options of a local stack's server (stack/stack.ts) started as tests start theirs. */
export function testTemporalOptions(options: TemporalServerOptions = {}): LocalTemporalOptions {
  return {
    executable: options.executable ?? readTemporalPath(),
    port: options.port,
    dbFile: options.dbFile,
    namespaces: options.namespaces,
    searchAttributes: options.searchAttributes,
    startTimeoutMs: options.startTimeoutMs ?? 60_000,
    dynamicConfig: options.dynamicConfig,
    spawn: spawnGuarded,
  };
}

/** A server of the tests' own (the in-process stacks start theirs through the local stack). */
export async function startTemporalServer(options: TemporalServerOptions = {}): Promise<TemporalServer> {
  const server = await startLocalTemporal(testTemporalOptions(options));
  return { ...server, namespace: 'default' };
}

/**
 * The SDK's test environment (client, native connection) on a server started as
 * `startTemporalServer` starts one, on the binary the setup script resolved; `env.teardown()` also
 * stops the server. Use `startTemporalServer` instead when the server must be stopped and restarted.
 */
export async function createLocalTestEnvironment(
  options: { executable?: string } = {},
): Promise<TestWorkflowEnvironment> {
  const server = await startTemporalServer(options);
  let env: TestWorkflowEnvironment;
  try {
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: server.address });
  } catch (error) {
    await server.stop();
    throw error;
  }
  const closeConnections = env.teardown.bind(env);
  env.teardown = async () => {
    await closeConnections();
    await server.stop();
  };
  return env;
}
