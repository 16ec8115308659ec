// `tideline cluster up|down|status` as a library (the CLI command, the chaos campaign and the tests
// use it): PostgreSQL, the schemas, the Temporal server, the namespace and the Web UI (optional),
// each step skipped when
// already done, so `up` is idempotent and also brings back whatever of the cluster is down (after a
// crash of the server or a stop of PostgreSQL). Data lives in the cluster directory and survives
// `down`/`up`; the state file keeps the ports and the pids of what `up` started. A cluster made
// with `mtls` requires client certificates on its frontend and internode ports; its info carries
// the environment a client needs (`clientEnv`), which its own clients use too.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { StackError } from '../stack/stack-error';
import { toolsDirectory } from '../stack/temporal-binary';
import { connectClient } from '../worker/connection';
import { ensureCertificates } from './certificates';
import { ensureNamespace } from './namespace';
import { ensurePostgresBin, initPostgres, postgresPid, startPostgres, stopPostgres } from './postgres';
import { applySchemas } from './schema';
import { DATABASES } from './server-config';
import {
  SERVICES,
  assertServerRunning,
  frontendAddress,
  serverPid,
  serverRunning,
  servicePids,
  startServer,
  stopServer,
  stopService,
  type ServiceName,
} from './server';
import {
  clusterPaths,
  newClusterState,
  readClusterState,
  writeClusterState,
  type ClusterPaths,
  type ClusterState,
  type ServerProcesses,
  withUiPort,
} from './state';
import { clusterClientEnv, clusterClientSettings } from './tls';
import { ensureClusterTools } from './tools';
import { SHARED_DEFAULTS } from '../worker/shared-settings';
import { ensureUiServer, gatePid, startUi, stopUi, uiPid, uiRunning, webUiUrl } from './web-ui';

export const DEFAULT_NAMESPACE = SHARED_DEFAULTS.namespace;

export function defaultClusterDir(): string {
  return path.join(toolsDirectory(process.env), 'cluster');
}

/** What `up` and `status` print (the first JSON line); never the password. */
export interface ClusterInfo {
  dir: string;
  address: string;
  namespace: string;
  /** The Temporal Web UI, while it runs. */
  webUiUrl?: string;
  /** `ui` only for a cluster that has a Web UI. */
  running: { postgres: boolean; server: boolean; ui?: boolean };
  postgres: { host: string; port: number; user: string; databases: string[]; dataDir: string };
  /** `server` for one server process; `services` (one pid per service) for separate ones. */
  pids: {
    postgres?: number;
    server?: number;
    services?: Partial<Record<ServiceName, number>>;
    ui?: number;
    /** With mTLS: the Web UI's read-only gate. */
    uiGate?: number;
  };
  logs: { postgres: string; server: string; ui?: string };
  serverProcesses: ServerProcesses;
  /** Whether the frontend and internode ports require client certificates. */
  mtls: boolean;
  /**
   * What a worker or CLI needs in its environment to reach the cluster: TEMPORAL_ADDRESS,
   * TEMPORAL_NAMESPACE and, with mTLS, the TEMPORAL_TLS_* paths of the client certificate.
   */
  clientEnv: Record<string, string>;
  /** `status` only, while the server runs: the frontend answered a client with `clientEnv`. */
  frontendAnswers?: boolean;
}

export interface ClusterUpOptions {
  dir: string;
  namespace?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Start the Web UI too (default true; the benchmarks leave it out). */
  webUi?: boolean;
  /** For a new cluster: the four services in `one` process (default) or `separate` ones. */
  serverProcesses?: ServerProcesses;
  /** For a new cluster: require client certificates (mutual TLS); an existing one keeps its choice. */
  mtls?: boolean;
}

export function clusterInfo(paths: ClusterPaths, state: ClusterState): ClusterInfo {
  const pgPid = postgresPid(paths);
  const srvPid = serverPid(paths, state);
  const services = servicePids(paths, state);
  const separate = state.serverProcesses === 'separate';
  const webPid = uiPid(paths, state);
  const gate = gatePid(paths, state);
  const hasUi = state.pids.ui !== undefined;
  const url = webUiUrl(state);
  const webUiServes = uiRunning(paths, state);
  return {
    dir: paths.dir,
    address: frontendAddress(state),
    namespace: state.namespace,
    ...(webUiServes && url !== undefined ? { webUiUrl: url } : {}),
    running: {
      postgres: pgPid !== undefined,
      server: serverRunning(paths, state),
      ...(hasUi ? { ui: webUiServes } : {}),
    },
    postgres: {
      host: '127.0.0.1',
      port: state.ports.postgres,
      user: state.postgres.user,
      databases: [DATABASES.temporal, DATABASES.visibility],
      dataDir: paths.pgData,
    },
    pids: {
      ...(pgPid !== undefined ? { postgres: pgPid } : {}),
      ...(srvPid !== undefined ? { server: srvPid } : {}),
      ...(separate && Object.keys(services).length > 0 ? { services } : {}),
      ...(webPid !== undefined ? { ui: webPid } : {}),
      ...(gate !== undefined ? { uiGate: gate } : {}),
    },
    logs: {
      postgres: paths.pgLog,
      // separate processes log to NAME.log next to it
      server: separate ? path.dirname(paths.serverLog) : paths.serverLog,
      ...(hasUi ? { ui: paths.uiLog } : {}),
    },
    serverProcesses: state.serverProcesses,
    mtls: state.mtls,
    clientEnv: clusterClientEnv(paths, state),
  };
}

/** Starts (or completes) the cluster in `dir`; resolves once the namespace is usable. */
export async function clusterUp(options: ClusterUpOptions): Promise<ClusterInfo> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const paths = clusterPaths(options.dir);
  mkdirSync(paths.dir, { recursive: true });
  let state = readClusterState(paths);
  if (state !== undefined && options.namespace !== undefined && options.namespace !== state.namespace) {
    throw new StackError(
      'CLI_USAGE',
      `the cluster in ${paths.dir} serves namespace ${state.namespace}, not ${options.namespace}`,
      'leave out --namespace, or use another --dir',
    );
  }
  if (
    state !== undefined &&
    options.serverProcesses !== undefined &&
    options.serverProcesses !== state.serverProcesses
  ) {
    throw new StackError(
      'CLI_USAGE',
      `the cluster in ${paths.dir} runs its server as ${state.serverProcesses === 'one' ? 'one process' : 'separate processes'}`,
      'leave out --separate-services, or use another --dir',
    );
  }
  if (state !== undefined && options.mtls === true && !state.mtls) {
    throw new StackError(
      'CLI_USAGE',
      `the cluster in ${paths.dir} runs without mTLS (fixed at its first \`up\`)`,
      'leave out --mtls, or use another --dir for a cluster with mTLS',
    );
  }
  if (state === undefined) {
    const fresh = await newClusterState(options.namespace ?? DEFAULT_NAMESPACE, options.serverProcesses, {
      mtls: options.mtls === true,
    });
    // Issued before the state is written: without openssl no cluster is left that needs them.
    if (fresh.mtls) await ensureCertificates(paths.tlsDir, env);
    writeClusterState(paths, fresh);
    state = fresh;
  } else if (state.mtls) {
    await ensureCertificates(paths.tlsDir, env); // re-issues a missing or expiring one
  }
  const tools = await ensureClusterTools(env, log);
  const pgBin = await ensurePostgresBin(env, log);
  if (await initPostgres(paths, state, pgBin))
    log(`tideline: created a PostgreSQL data directory in ${paths.pgData}`);
  const pgPid = await startPostgres(paths, pgBin);
  state = { ...state, pids: { ...state.pids, postgres: pgPid } };
  writeClusterState(paths, state);
  await applySchemas(tools, state);
  const srvPids = await startServer(paths, state, tools.server);
  state = { ...state, pids: { ...state.pids, ...srvPids } };
  writeClusterState(paths, state);
  await ensureNamespace(clusterClientSettings(paths, state));
  const uiBinary = options.webUi === false ? undefined : await ensureUiServer(env, log);
  if (uiBinary !== undefined) {
    state = await withUiPort(state);
    writeClusterState(paths, state);
    const webPids = await startUi(paths, state, uiBinary);
    state = { ...state, pids: { ...state.pids, ...webPids } };
    writeClusterState(paths, state);
  }
  // startServer saw every server process serve, but one can still exit since (the namespace steps
  // take seconds): an error naming it, never an info line with running.server false and exit 0.
  assertServerRunning(paths, state);
  return clusterInfo(paths, state);
}

function requireState(dir: string): { paths: ClusterPaths; state: ClusterState } {
  const paths = clusterPaths(dir);
  const state = existsSync(paths.stateFile) ? readClusterState(paths) : undefined;
  if (state === undefined) {
    throw new StackError(
      'CLUSTER_NOT_FOUND',
      `no tideline cluster in ${paths.dir}`,
      'start one with `tideline cluster up`',
    );
  }
  return { paths, state };
}

export function clusterStatus(dir: string): ClusterInfo {
  const { paths, state } = requireState(dir);
  return clusterInfo(paths, state);
}

/** Whether the frontend answers GetSystemInfo for a client with the cluster's client settings. */
async function frontendAnswers(paths: ClusterPaths, state: ClusterState): Promise<boolean> {
  try {
    const connection = await connectClient(clusterClientSettings(paths, state), { connectTimeout: 5_000 });
    try {
      await connection.withDeadline(Date.now() + 5_000, () => connection.workflowService.getSystemInfo({}));
      return true;
    } finally {
      await connection.close().catch(() => undefined);
    }
  } catch {
    return false;
  }
}

/** `status`: what runs, and — while the server runs — whether a client of the cluster is answered. */
export async function clusterStatusChecked(dir: string): Promise<ClusterInfo> {
  const { paths, state } = requireState(dir);
  const info = clusterInfo(paths, state);
  if (!info.running.server) return info;
  return { ...info, frontendAnswers: await frontendAnswers(paths, state) };
}

/** Stops the Web UI, the server, then PostgreSQL (what `up` started, by pid); the data stays. */
export async function clusterDown(dir: string): Promise<{ dir: string; stopped: string[] }> {
  const { paths, state } = requireState(dir);
  const stopped: string[] = [];
  if (await stopUi(paths, state)) stopped.push('ui');
  if (await stopServer(paths, state)) stopped.push('server');
  if (await stopPostgres(paths, undefined)) stopped.push('postgres');
  writeClusterState(paths, { ...state, pids: {} });
  return { dir: paths.dir, stopped };
}

/** For chaos: the cluster's server killed (SIGKILL) or stopped (SIGTERM); `clusterUp` restarts it. */
export async function stopClusterServer(dir: string, signal: 'SIGTERM' | 'SIGKILL'): Promise<boolean> {
  const { paths, state } = requireState(dir);
  return stopServer(paths, state, signal);
}

/** For tests and chaos: one service process of a cluster with separate ones killed; `clusterUp` restarts it. */
export async function stopClusterService(
  dir: string,
  service: ServiceName,
  signal: 'SIGTERM' | 'SIGKILL' = 'SIGKILL',
): Promise<boolean> {
  const { paths, state } = requireState(dir);
  return stopService(paths, state, service, signal);
}

export { SERVICES };

/** For chaos: PostgreSQL stopped (fast shutdown); `clusterUp` starts it again. */
export async function stopClusterPostgres(dir: string): Promise<boolean> {
  return stopPostgres(clusterPaths(dir), undefined);
}
