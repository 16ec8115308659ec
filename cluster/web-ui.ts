// The native cluster's Temporal Web UI: the pinned ui-server (assets embedded) built like the server
// by scripts/setup-cluster.js, one detached process on 127.0.0.1 talking to the cluster's frontend,
// output appended to <dir>/ui/ui.log. Optional: when it cannot be built, `up` says why and the
// cluster runs without it. Payloads stay encrypted in it (no codec server here; see `tideline dev`).
// With mTLS it calls the frontend with the cluster's client certificate.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as ClusterSetup from '../scripts/setup-cluster';
import { isPortFree } from '../stack/ports';
import { packageRoot } from '../stack/temporal-binary';
import { StackError } from '../stack/stack-error';
import { isOurProcess, logTail, spawnDaemon, terminate, waitFor } from './processes';
import type { ClusterCertificates } from './certificates';
import type { ClusterPaths, ClusterState } from './state';
import { clusterCertificates, uiTlsLines } from './tls';

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

export function renderUiConfig(state: ClusterState, tls?: ClusterCertificates): string {
  return [
    '# Written by `tideline cluster up`; rewritten at every start.',
    `temporalGrpcAddress: "127.0.0.1:${state.ports.frontend}"`,
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
    ...(tls === undefined ? [] : uiTlsLines(tls)),
    '',
  ].join('\n');
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

/** Starts the Web UI unless it runs; returns its pid once it serves its page. */
export async function startUi(paths: ClusterPaths, state: ClusterState, binary: string): Promise<number> {
  const url = webUiUrl(state);
  if (url === undefined || state.ports.ui === undefined)
    throw new StackError('CLUSTER_START_FAILED', 'the cluster state has no Web UI port');
  const running = uiPid(paths, state);
  if (running !== undefined) return running;
  if (!(await isPortFree(state.ports.ui))) {
    throw new StackError(
      'CLUSTER_START_FAILED',
      `the Web UI port ${state.ports.ui} of this cluster is taken by something else`,
      'stop what uses it, or use another --dir',
    );
  }
  const configDir = path.join(paths.uiDir, 'config');
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const config = renderUiConfig(state, clusterCertificates(paths, state));
  writeFileSync(path.join(configDir, `${UI_CONFIG_ENV}.yaml`), config, { mode: 0o600 });
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
  if (pid === undefined) return false;
  await terminate(pid, uiMarker(paths), 'SIGTERM', 10_000);
  return waitFor(() => !isOurProcess(pid, uiMarker(paths)), 1_000);
}
