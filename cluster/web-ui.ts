// The native cluster's Temporal Web UI: the pinned ui-server (assets embedded) built like the server
// by scripts/setup-cluster.js, one detached process on 127.0.0.1 talking to the cluster's frontend,
// output appended to <dir>/ui/ui.log. Optional: when it cannot be built, `up` says why and the
// cluster runs without it. Payloads stay encrypted in it (no codec server here; see `tideline dev`).
// With mTLS it is read-only: it holds no certificate and calls the frontend through the read-only
// gate (cluster/read-only-gate.ts, a second daemon, output to <dir>/ui/gate.log), which alone holds
// the client certificate and forwards only reads; the UI's own write actions are switched off too,
// so its pages offer none. The UI has no login: whoever reaches 127.0.0.1 can read the cluster.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as ClusterSetup from '../scripts/setup-cluster';
import { isPortFree } from '../stack/ports';
import { packageRoot } from '../stack/temporal-binary';
import { StackError } from '../stack/stack-error';
import { isOurProcess, logTail, spawnDaemon, terminate, waitFor } from './processes';
import { TLS_SERVER_NAME } from './certificates';
import type { ReadOnlyGateConfig } from './read-only-gate';
import type { ClusterPaths, ClusterState } from './state';
import { clusterCertificates } from './tls';

const UI_CONFIG_ENV = 'tideline';

/** The built Web UI server, building it (about a minute, once) when missing; undefined when it cannot be. */
export async function ensureUiServer(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<string | undefined> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const setup = require(path.join(packageRoot(), 'scripts', 'setup-cluster.js')) as typeof ClusterSetup;
  try {
    const result = await setup.ensureClusterUi({ env, root: packageRoot(), log });
    if (!('unavailable' in result)) return result.uiServer;
    log(`tideline: no Web UI for the cluster: ${result.unavailable}`);
  } catch (error) {
    log(`tideline: no Web UI for the cluster: ${error instanceof Error ? error.message : String(error)}`);
  }
  return undefined;
}

export function webUiUrl(state: ClusterState): string | undefined {
  return state.ports.ui === undefined ? undefined : `http://127.0.0.1:${state.ports.ui}`;
}

/** What the UI's command line holds and no other process's does (its root is <dir>/ui). */
export function uiMarker(paths: ClusterPaths): string {
  return `--root ${paths.uiDir} --config`;
}

export function uiPid(paths: ClusterPaths, state: ClusterState): number | undefined {
  return isOurProcess(state.pids.ui, uiMarker(paths)) ? state.pids.ui : undefined;
}

/** The UI server's switches for its write actions: all off (the gate refuses them anyway). */
const READ_ONLY_UI_LINES = [
  'disableWriteActions: true',
  'workflowTerminateDisabled: true',
  'workflowCancelDisabled: true',
  'workflowSignalDisabled: true',
  'workflowUpdateDisabled: true',
  'workflowResetDisabled: true',
  'batchActionsDisabled: true',
  'startWorkflowDisabled: true',
  'activityCommandsDisabled: true',
];

export function renderUiConfig(state: ClusterState): string {
  const readOnly = state.mtls;
  if (readOnly && state.ports.uiGate === undefined)
    throw new StackError('CLUSTER_START_FAILED', 'the cluster state has no port for the Web UI gate');
  const grpcPort = readOnly ? state.ports.uiGate : state.ports.frontend;
  return [
    '# Written by `tideline cluster up`; rewritten at every start.',
    `temporalGrpcAddress: "127.0.0.1:${grpcPort}"`,
    'host: "127.0.0.1"',
    `port: ${state.ports.ui ?? 0}`,
    'enableUi: true',
    `defaultNamespace: "${state.namespace}"`,
    'showTemporalSystemNamespace: false',
    'notifyOnNewVersion: false',
    'refreshInterval: 1m',
    'cors:',
    '  cookieInsecure: true', // plain HTTP on loopback
    '  allowOrigins: []',
    'auth:',
    '  enabled: false',
    ...(readOnly ? READ_ONLY_UI_LINES : []),
    '',
  ].join('\n');
}

function gateConfigFile(paths: ClusterPaths): string {
  return path.join(paths.uiDir, 'gate.json');
}

/** What the gate's command line holds and no other process's does. */
export function gateMarker(paths: ClusterPaths): string {
  return `--gate ${gateConfigFile(paths)}`;
}

export function gatePid(paths: ClusterPaths, state: ClusterState): number | undefined {
  return isOurProcess(state.pids.uiGate, gateMarker(paths)) ? state.pids.uiGate : undefined;
}

/** True when the Web UI runs with what it needs (with mTLS: its gate too). */
export function uiRunning(paths: ClusterPaths, state: ClusterState): boolean {
  return uiPid(paths, state) !== undefined && (!state.mtls || gatePid(paths, state) !== undefined);
}

/** The gate daemon's script: compiled with the CLI (the package ships dist/). */
function gateScript(): string {
  return path.join(packageRoot(), 'dist', 'cluster', 'read-only-gate-main.js');
}

/** Starts the read-only gate of an mTLS cluster's UI unless it runs; returns its pid once it listens. */
async function startGate(paths: ClusterPaths, state: ClusterState): Promise<number> {
  const files = clusterCertificates(paths, state);
  const port = state.ports.uiGate;
  if (files === undefined || port === undefined)
    throw new StackError('CLUSTER_START_FAILED', 'the cluster state has no port for the Web UI gate');
  const running = gatePid(paths, state);
  if (running !== undefined) return running;
  if (!existsSync(gateScript()))
    throw new StackError(
      'CLUSTER_START_FAILED',
      `${gateScript()} is missing`,
      'build tideline (npm run build)',
    );
  if (!(await isPortFree(port)))
    throw new StackError(
      'CLUSTER_START_FAILED',
      `the Web UI gate port ${port} of this cluster is taken by something else`,
      'stop what uses it, or use another --dir',
    );
  const config: ReadOnlyGateConfig = {
    listenPort: port,
    frontendPort: state.ports.frontend,
    serverName: TLS_SERVER_NAME,
    caFile: files.serverCa,
    certFile: files.clientCert,
    keyFile: files.clientKey,
  };
  mkdirSync(paths.uiDir, { recursive: true, mode: 0o700 });
  writeFileSync(gateConfigFile(paths), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  const log = path.join(paths.uiDir, 'gate.log');
  const pid = spawnDaemon(process.execPath, [gateScript(), '--gate', gateConfigFile(paths)], {
    logFile: log,
    env: process.env,
  });
  const listening = await waitFor(
    () => !isOurProcess(pid, gateMarker(paths)) || logTail(log).includes(`listening on 127.0.0.1:${port}`),
    30_000,
  );
  if (listening && isOurProcess(pid, gateMarker(paths))) return pid;
  await terminate(pid, gateMarker(paths), 'SIGKILL');
  throw new StackError(
    'CLUSTER_START_FAILED',
    `the Web UI gate did not start; the end of ${log}:\n${logTail(log)}`,
  );
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Starts the Web UI (with mTLS, its gate first) unless it runs; returns the pids once it serves its page. */
export async function startUi(
  paths: ClusterPaths,
  state: ClusterState,
  binary: string,
): Promise<{ ui: number; uiGate?: number }> {
  const uiGate = state.mtls ? await startGate(paths, state) : undefined;
  try {
    const ui = await startUiServer(paths, state, binary);
    return { ui, ...(uiGate !== undefined && { uiGate }) };
  } catch (error) {
    if (uiGate !== undefined) await terminate(uiGate, gateMarker(paths), 'SIGTERM', 10_000);
    throw error;
  }
}

async function startUiServer(paths: ClusterPaths, state: ClusterState, binary: string): Promise<number> {
  const url = webUiUrl(state);
  if (url === undefined || state.ports.ui === undefined)
    throw new StackError('CLUSTER_START_FAILED', 'the cluster state has no Web UI port');
  const configDir = path.join(paths.uiDir, 'config');
  const configFile = path.join(configDir, `${UI_CONFIG_ENV}.yaml`);
  const config = renderUiConfig(state);
  const running = uiPid(paths, state);
  if (running !== undefined) {
    // A UI started with another config (e.g. one that held the client certificate, before the
    // gate) is restarted: it reads its frontend address and TLS settings only at start.
    if (existsSync(configFile) && readFileSync(configFile, 'utf8') === config) return running;
    await terminate(running, uiMarker(paths), 'SIGTERM', 10_000);
  }
  if (!(await isPortFree(state.ports.ui))) {
    throw new StackError(
      'CLUSTER_START_FAILED',
      `the Web UI port ${state.ports.ui} of this cluster is taken by something else`,
      'stop what uses it, or use another --dir',
    );
  }
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(configFile, config, { mode: 0o600 });
  const args = ['--root', paths.uiDir, '--config', 'config', '--env', UI_CONFIG_ENV, 'start'];
  const pid = spawnDaemon(binary, args, { logFile: paths.uiLog, cwd: paths.uiDir, env: process.env });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!isOurProcess(pid, uiMarker(paths))) break;
    if (await answers(url)) return pid;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  await terminate(pid, uiMarker(paths), 'SIGKILL');
  throw new StackError(
    'CLUSTER_START_FAILED',
    `the Web UI did not serve ${url}; the end of ${paths.uiLog}:\n${logTail(paths.uiLog)}`,
  );
}

export async function stopUi(paths: ClusterPaths, state: ClusterState): Promise<boolean> {
  const pid = uiPid(paths, state);
  const gate = gatePid(paths, state);
  if (pid !== undefined) await terminate(pid, uiMarker(paths), 'SIGTERM', 10_000);
  if (gate !== undefined) await terminate(gate, gateMarker(paths), 'SIGTERM', 10_000);
  if (pid === undefined && gate === undefined) return false;
  return waitFor(
    () =>
      (pid === undefined || !isOurProcess(pid, uiMarker(paths))) &&
      (gate === undefined || !isOurProcess(gate, gateMarker(paths))),
    1_000,
  );
}
