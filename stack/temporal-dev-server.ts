// The Temporal dev server: `temporal server start-dev` bound to 127.0.0.1, optionally persisted to
// a SQLite file, supervised so it never outlives the process that started it, and ready once its
// frontend answers. `launchDevServer` is the one way to spawn `temporal server start-dev`; the
// restartable server of every local stack (local-temporal.ts) is launched by it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import { connectClient, localConnectionSettings } from '../worker/connection';
import { TIDELINE_SEARCH_ATTRIBUTES } from '../contract/search-attributes';
import { LOOPBACK } from './ports';
import { spawnSupervised, type SupervisedProcess } from './supervised-process';

export interface DevServerLaunch {
  executable: string;
  port: number;
  /** The Web UI's port; without one the server runs headless. */
  uiPort?: number | undefined;
  /**
   * The remote codec endpoint the Web UI decodes payloads with (`http://127.0.0.1:N/codec`), on the
   * command line: for an endpoint that holds no secret.
   */
  uiCodecEndpoint?: string | undefined;
  /**
   * A file of `writeUiCodecEnvFile` that gives the Web UI its codec endpoint instead: for an
   * endpoint that holds a secret, since every local user can read a process's command line.
   */
  uiCodecEnvFile?: string | undefined;
  /** SQLite file that keeps workflows and schedules across restarts; in memory when absent. */
  dbFile?: string | undefined;
  /** Namespaces to create besides `default` (which always exists). */
  namespaces?: readonly string[];
  /** Search attributes to register, e.g. `{ TidelineRunbook: 'Keyword' }`. */
  searchAttributes?: Readonly<Record<string, string>>;
  /** Server settings (`--dynamic-config-value key=value`), e.g. eager activity dispatch. */
  dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
  /** Default `warn`. */
  logLevel?: 'warn' | 'error';
  /** How long to wait until the frontend answers. Default 90 s. */
  startTimeoutMs?: number;
}

/** Starts the command under supervision; `spawnSupervised` unless the caller keeps its own record. */
export type SpawnDevServer = (command: string, args: readonly string[], port: number) => SupervisedProcess;

/** tideline's search attributes as name → type: runs upsert them, and workers refuse a namespace without them. */
export const TIDELINE_ATTRIBUTE_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  TIDELINE_SEARCH_ATTRIBUTES.map(({ name, type }) => [name, type]),
);

const POLL_MS = 250;
const OUTPUT_TAIL = 4000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The environment of the `temporal` CLI's env file that holds the Web UI's codec endpoint. */
export const UI_CODEC_ENV = 'tideline-dev-ui';

export interface UiCodecEnvFile {
  readonly file: string;
  /** Removes the file and its folder (a server started afterwards gets no codec endpoint). */
  remove(): void;
}

/**
 * Writes the Web UI's codec endpoint where `temporal server start-dev` reads it at start and nobody
 * else can: an env file of the `temporal` CLI (`--env-file FILE --env tideline-dev-ui`, which sets
 * any flag of the command, here `--ui-codec-endpoint`), mode 0600 in a fresh folder of mode 0700.
 * The CLI has no environment variable for the flag, and its command line is readable by every
 * local user in /proc/PID/cmdline.
 */
export function writeUiCodecEnvFile(endpoint: string): UiCodecEnvFile {
  const dir = mkdtempSync(path.join(tmpdir(), 'tideline-ui-codec-'));
  const file = path.join(dir, 'temporal-env.yaml');
  // A JSON string is a YAML double-quoted scalar: the endpoint is read back exactly.
  const yaml = `env:\n  ${UI_CODEC_ENV}:\n    ui-codec-endpoint: ${JSON.stringify(endpoint)}\n`;
  writeFileSync(file, yaml, { mode: 0o600, flag: 'wx' });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The `temporal` arguments of a dev server bound to 127.0.0.1 (the HTTP API and metrics take free ports). */
export function devServerArgs(launch: Omit<DevServerLaunch, 'executable' | 'startTimeoutMs'>): string[] {
  if (launch.uiCodecEndpoint !== undefined && launch.uiCodecEnvFile !== undefined) {
    // The command line's flag would win over the file's, silently.
    throw new Error('give the Web UI its codec endpoint on the command line or in an env file, not both');
  }
  const args = ['server', 'start-dev'];
  if (launch.uiPort === undefined) args.push('--headless');
  args.push('--ip', LOOPBACK, '--port', String(launch.port));
  if (launch.uiPort !== undefined) args.push('--ui-port', String(launch.uiPort));
  if (launch.uiPort !== undefined && launch.uiCodecEndpoint !== undefined) {
    args.push('--ui-codec-endpoint', launch.uiCodecEndpoint);
  }
  if (launch.uiPort !== undefined && launch.uiCodecEnvFile !== undefined) {
    args.push('--env-file', launch.uiCodecEnvFile, '--env', UI_CODEC_ENV);
  }
  args.push('--log-level', launch.logLevel ?? 'warn');
  if (launch.dbFile !== undefined) args.push('--db-filename', launch.dbFile);
  for (const namespace of launch.namespaces ?? []) args.push('--namespace', namespace);
  for (const [name, type] of Object.entries(launch.searchAttributes ?? {})) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries(launch.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return args;
}

/**
 * Resolves once the frontend at `address` answers and every namespace exists (they are registered
 * while the server starts, a moment after the port opens). Fails at once when `server` exits.
 */
export async function waitForTemporal(
  address: string,
  options: {
    namespaces?: readonly string[];
    timeoutMs: number;
    server?: Pick<SupervisedProcess, 'isRunning' | 'output'>;
  },
): Promise<void> {
  const namespaces = options.namespaces ?? ['default'];
  const deadline = Date.now() + options.timeoutMs;
  const outputTail = (): string => options.server?.output().slice(-OUTPUT_TAIL) ?? '';
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (options.server && !options.server.isRunning()) {
      throw new Error(`the Temporal dev server exited while starting:\n${outputTail()}`);
    }
    let connection: Connection | undefined;
    try {
      connection = await connectClient(localConnectionSettings(address), { connectTimeout: 2_000 });
      for (const namespace of namespaces) await connection.workflowService.describeNamespace({ namespace });
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await sleep(POLL_MS);
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(
    `the Temporal dev server at ${address} did not answer in time (${reason})\n${outputTail()}`,
  );
}

/**
 * How many times a dev server that exits at start because a port was taken is started again. The
 * server picks its HTTP API and metrics ports itself (free when it looked, yet another process on
 * the machine may bind one first); a new start picks new ones. The frontend port is the caller's:
 * when it was taken, the next start takes another only if the caller gives one (`newFrontendPort`).
 */
const PORT_TAKEN_STARTS = 3;
const PORT_TAKEN = /bind: address already in use/;
const FRONTEND_PORT_TAKEN = /can't set frontend port/;

export interface LaunchedDevServer {
  server: SupervisedProcess;
  /** The frontend port it answers on: `launch.port`, or one `newFrontendPort` gave. */
  port: number;
}

/** Starts a dev server and resolves once it is ready; one that does not get ready is stopped. */
export async function launchDevServer(
  launch: DevServerLaunch,
  spawn: SpawnDevServer = (command, args) => spawnSupervised(command, args),
  options: { newFrontendPort?: () => Promise<number> } = {},
): Promise<LaunchedDevServer> {
  let port = launch.port;
  for (let start = 1; ; start++) {
    const server = spawn(launch.executable, devServerArgs({ ...launch, port }), port);
    try {
      await waitForTemporal(`${LOOPBACK}:${port}`, {
        namespaces: ['default', ...(launch.namespaces ?? [])],
        timeoutMs: launch.startTimeoutMs ?? 90_000,
        server,
      });
      return { server, port };
    } catch (error) {
      await server.stop(5_000);
      const output = server.output();
      const portTaken = !server.isRunning() && PORT_TAKEN.test(output);
      if (!portTaken || start >= PORT_TAKEN_STARTS) throw error;
      if (options.newFrontendPort !== undefined && FRONTEND_PORT_TAKEN.test(output))
        port = await options.newFrontendPort();
    }
  }
}
