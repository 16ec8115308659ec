// The native cluster's state file (<dir>/cluster.json, mode 0600): the loopback ports chosen at the
// first `up` (reused by every later one), the PostgreSQL password, the namespace and the pids of
// what `up` started, so that `down` stops exactly those. Schema first; a damaged file is an error,
// never silently replaced (the data directory next to it is what matters).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isPortFree } from '../stack/ports';
import { StackError } from '../stack/stack-error';

const port = z.number().int().min(1024).max(65535);
const pid = z.number().int().positive();
/** Ringpop membership ports live in a smallint column: at most 32767, or the server dies at start. */
const membershipPort = z.number().int().min(1024).max(32767);

export const CLUSTER_STATE_SCHEMA = z.object({
  version: z.literal(1),
  namespace: z.string().min(1),
  /**
   * Fixed when the databases are created. Each shard writes to PostgreSQL one request at a time
   * (history.shardIOConcurrency = 1), so shards bound the write concurrency. Files from before
   * the field have 4.
   */
  numHistoryShards: z.number().int().min(1).max(16_384).default(4),
  /**
   * How the server runs: `one` process with all four services, or `separate` processes (history,
   * matching, frontend, worker), as production deployments run them. Fixed at the first `up`.
   */
  serverProcesses: z.enum(['one', 'separate']).default('one'),
  /**
   * Mutual TLS on the frontend and the internode ports, with certificates issued into tls/ (see
   * cluster/certificates.ts). Fixed at the first `up`; files from before the field have none.
   */
  mtls: z.boolean().default(false),
  ports: z.object({
    postgres: port,
    frontend: port,
    frontendHttp: port,
    history: port,
    matching: port,
    worker: port,
    frontendMembership: membershipPort,
    historyMembership: membershipPort,
    matchingMembership: membershipPort,
    workerMembership: membershipPort,
    /** The Web UI (optional: files from before it lack it, and `up` adds one). */
    ui: port.optional(),
    /** With mTLS: the read-only gate the Web UI calls the frontend through (cluster/read-only-gate.ts). */
    uiGate: port.optional(),
  }),
  postgres: z.object({
    user: z.string().min(1),
    /** Generated at the first `up`; only this file and the server's environment hold it. */
    password: z.string().min(16),
  }),
  pids: z.object({
    postgres: z.number().int().positive().optional(),
    server: z.number().int().positive().optional(),
    /** With serverProcesses `separate`: one pid per service. */
    services: z.partialRecord(z.enum(['history', 'matching', 'frontend', 'worker']), pid).optional(),
    ui: z.number().int().positive().optional(),
    uiGate: z.number().int().positive().optional(),
  }),
});
export type ServerProcesses = ClusterState['serverProcesses'];
export type ClusterState = z.infer<typeof CLUSTER_STATE_SCHEMA>;
export type ClusterPorts = ClusterState['ports'];

export interface ClusterPaths {
  dir: string;
  stateFile: string;
  pgData: string;
  pgLog: string;
  serverConfigDir: string;
  serverLog: string;
  uiDir: string;
  uiLog: string;
  /** The mTLS certificates and keys (a cluster with `mtls`). */
  tlsDir: string;
}

export function clusterPaths(dir: string): ClusterPaths {
  const root = path.resolve(dir);
  return {
    dir: root,
    stateFile: path.join(root, 'cluster.json'),
    pgData: path.join(root, 'postgres', 'data'),
    pgLog: path.join(root, 'postgres', 'postgres.log'),
    serverConfigDir: path.join(root, 'server', 'config'),
    serverLog: path.join(root, 'server', 'server.log'),
    uiDir: path.join(root, 'ui'),
    uiLog: path.join(root, 'ui', 'ui.log'),
    tlsDir: path.join(root, 'tls'),
  };
}

export function readClusterState(paths: ClusterPaths): ClusterState | undefined {
  if (!existsSync(paths.stateFile)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(paths.stateFile, 'utf8'));
  } catch (error) {
    throw new StackError(
      'CLI_USAGE',
      `${paths.stateFile} is not valid JSON: ${(error as Error).message}`,
      'fix or remove the file (the data under postgres/ is kept either way)',
    );
  }
  const parsed = CLUSTER_STATE_SCHEMA.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StackError(
      'CLI_USAGE',
      `${paths.stateFile} is not a tideline cluster state file: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
      'point --dir at a cluster directory made by `tideline cluster up`',
    );
  }
  return parsed.data;
}

export function writeClusterState(paths: ClusterPaths, state: ClusterState): void {
  mkdirSync(paths.dir, { recursive: true });
  const tmp = `${paths.stateFile}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(CLUSTER_STATE_SCHEMA.parse(state), null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, paths.stateFile);
}

/** History shards of a new cluster (the server's development config has 4). */
export const NEW_CLUSTER_SHARDS = 16;

/** Free loopback ports below 32768 (the kernel hands out ephemeral ports above, so none is fixed). */
const LOW = 20_000;
const HIGH = 32_767;

async function pickLowPort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const candidate = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (taken.has(candidate) || !(await isPortFree(candidate))) continue;
    taken.add(candidate);
    return candidate;
  }
  throw new StackError('CLUSTER_START_FAILED', `no free loopback port between ${LOW} and ${HIGH}`);
}

export async function newClusterState(
  namespace: string,
  serverProcesses: ServerProcesses = 'one',
  options: { mtls?: boolean } = {},
): Promise<ClusterState> {
  const taken = new Set<number>();
  const names = [
    'postgres',
    'frontend',
    'frontendHttp',
    'history',
    'matching',
    'worker',
    'frontendMembership',
    'historyMembership',
    'matchingMembership',
    'workerMembership',
    'ui',
  ] as const;
  const ports: Partial<ClusterPorts> = {};
  for (const name of names) ports[name] = await pickLowPort(taken);
  return {
    version: 1,
    namespace,
    numHistoryShards: NEW_CLUSTER_SHARDS,
    serverProcesses,
    mtls: options.mtls ?? false,
    ports: ports as ClusterPorts,
    postgres: { user: 'temporal', password: randomBytes(24).toString('base64url') },
    pids: {},
  };
}

/**
 * The state with a Web UI port (a cluster made before the Web UI has none) and, with mTLS, a port
 * for the UI's read-only gate.
 */
export async function withUiPort(state: ClusterState): Promise<ClusterState> {
  const taken = new Set<number>(Object.values(state.ports).filter((p): p is number => p !== undefined));
  const ui = state.ports.ui ?? (await pickLowPort(taken));
  const uiGate = state.mtls ? (state.ports.uiGate ?? (await pickLowPort(taken))) : state.ports.uiGate;
  if (ui === state.ports.ui && uiGate === state.ports.uiGate) return state;
  return { ...state, ports: { ...state.ports, ui, ...(uiGate !== undefined && { uiGate }) } };
}

/** Every port of the cluster that is bound by something right now (for a clear error at `up`). */
export async function busyPorts(
  ports: ClusterPorts,
  skip: ReadonlyArray<keyof ClusterPorts>,
): Promise<string[]> {
  const busy: string[] = [];
  for (const [name, value] of Object.entries(ports)) {
    if (value === undefined || skip.includes(name as keyof ClusterPorts)) continue;
    if (!(await isPortFree(value))) busy.push(`${name} ${value}`);
  }
  return busy;
}
