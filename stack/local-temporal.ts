// A Temporal dev server on 127.0.0.1 that keeps its port (and its SQLite file, when it has one)
// across stop, kill and start, so workflows survive a restart: the server of `tideline dev` (with
// the Web UI), of `tideline test`, of the tests and of the benchmarks (headless), each started
// through the local stack (stack.ts), with tideline's search attributes.
//
//   const server = await startLocalTemporal({ executable, dbFile });
//   await server.kill();      // a crash: nothing flushed beyond what SQLite committed
//   await server.start();     // same port, same history
//   await server.stop();
import { findFreePort, LOOPBACK } from './ports';
import {
  spawnSupervised,
  type ProcessExit,
  type SupervisedProcess,
  type SupervisedProcessOptions,
} from './supervised-process';
import { launchDevServer, TIDELINE_ATTRIBUTE_TYPES, type DevServerLaunch } from './temporal-dev-server';

/** Starts a command under supervision; callers that keep their own record of processes pass theirs. */
export type SpawnProcess = (
  command: string,
  args: readonly string[],
  options: Pick<SupervisedProcessOptions, 'env' | 'cwd' | 'label'>,
) => SupervisedProcess;

export const spawnProcess: SpawnProcess = (command, args, options) => spawnSupervised(command, args, options);

export interface LocalTemporalOptions extends Omit<DevServerLaunch, 'port' | 'searchAttributes'> {
  /** Frontend gRPC port. Default: a free one, kept across restarts. */
  port?: number | undefined;
  /** Search attributes to register. Default: tideline's; `{}` for a server without them. */
  searchAttributes?: Readonly<Record<string, string>> | undefined;
  /** Default: `spawnSupervised` (killed when this process exits). */
  spawn?: SpawnProcess;
}

export interface LocalTemporal {
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  readonly port: number;
  /** The Web UI's address, when the server has one (`uiPort`). */
  readonly webUiUrl: string | undefined;
  readonly dbFile: string | undefined;
  /** The guard's pid of the current server (its process group holds the server); 0 before any. */
  pid(): number;
  isRunning(): boolean;
  /** Output of the current (or last) server process. */
  output(): string;
  /** Starts it (again, after stop or kill) on the same port and database; resolves once ready. */
  start(): Promise<void>;
  /** Graceful stop (SIGTERM; SIGKILL for a server in memory); resolves once the process has exited. */
  stop(): Promise<void>;
  /** Hard kill (SIGKILL). */
  kill(): Promise<ProcessExit>;
  /** stop() + start(). */
  restart(): Promise<void>;
}

export async function startLocalTemporal(options: LocalTemporalOptions): Promise<LocalTemporal> {
  const { spawn = spawnProcess, port: askedPort, searchAttributes, ...launch } = options;
  let port = askedPort ?? (await findFreePort());
  let current: SupervisedProcess | undefined;

  // A port found free can be taken by another process before the server binds it: the first start
  // takes another free one then, unless the port was asked for. Later starts keep it (clients and
  // the stack's settings know the address).
  const launchOn = async (portMayMove: boolean): Promise<void> => {
    const launched = await launchDevServer(
      { ...launch, port, searchAttributes: searchAttributes ?? TIDELINE_ATTRIBUTE_TYPES },
      (command, args, at) =>
        (current = spawn(command, args, { label: `temporal dev server (${LOOPBACK}:${at})` })),
      portMayMove ? { newFrontendPort: findFreePort } : {},
    );
    port = launched.port;
  };
  const start = async (): Promise<void> => {
    if (current?.isRunning()) return;
    await launchOn(false);
  };
  // A server in memory has nothing to flush: killing it loses nothing a graceful stop would keep,
  // and saves the second its shutdown takes.
  const stop = async (): Promise<void> => {
    await (options.dbFile === undefined ? current?.kill() : current?.stop());
  };

  await launchOn(askedPort === undefined);
  const address = `${LOOPBACK}:${port}`;
  return {
    address,
    port,
    webUiUrl: options.uiPort === undefined ? undefined : `http://${LOOPBACK}:${options.uiPort}`,
    dbFile: options.dbFile,
    pid: () => current?.pid ?? 0,
    isRunning: () => current?.isRunning() ?? false,
    output: () => current?.output() ?? '',
    start,
    stop,
    kill: async () => (current ? current.kill() : { code: null, signal: null }),
    restart: async () => {
      await stop();
      await start();
    },
  };
}
