// The Temporal server's configuration for the native cluster, after the server repository's
// config/development-postgres12.yaml: PostgreSQL persistence and visibility, all services bound to
// 127.0.0.1 on the cluster's ports. The password is not in the file: the config is a template
// (`# enable-template`) that reads it from the server's environment. With mTLS, `global.tls` makes
// the frontend and the internode ports require client certificates (cluster/tls.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ClusterCertificates } from './certificates';
import type { ClusterPaths, ClusterState } from './state';
import { clusterCertificates, serverTlsLines } from './tls';

export const CONFIG_ENV = 'tideline';
export const PASSWORD_ENV = 'TIDELINE_CLUSTER_PG_PASSWORD';
export const DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility' } as const;

function datastore(state: ClusterState, database: string, maxConns: number): string[] {
  return [
    '      sql:',
    '        pluginName: "postgres12"',
    `        databaseName: "${database}"`,
    `        connectAddr: "127.0.0.1:${state.ports.postgres}"`,
    '        connectProtocol: "tcp"',
    `        user: "${state.postgres.user}"`,
    `        password: "{{ env "${PASSWORD_ENV}" }}"`,
    `        maxConns: ${maxConns}`,
    `        maxIdleConns: ${maxConns}`,
    '        maxConnLifetime: "1h"',
  ];
}

function service(name: string, grpcPort: number, membershipPort: number, extra: string[] = []): string[] {
  return [
    `  ${name}:`,
    '    rpc:',
    `      grpcPort: ${grpcPort}`,
    `      membershipPort: ${membershipPort}`,
    '      bindOnIP: "127.0.0.1"',
    ...extra,
  ];
}

export function renderServerConfig(
  state: ClusterState,
  dynamicConfigFile: string,
  tls?: ClusterCertificates,
): string {
  const { ports } = state;
  return [
    '# enable-template',
    '# Written by `tideline cluster up`; rewritten at every start.',
    'log:',
    '  stdout: true',
    '  level: warn',
    'persistence:',
    '  defaultStore: postgres-default',
    '  visibilityStore: postgres-visibility',
    `  numHistoryShards: ${state.numHistoryShards}`,
    '  datastores:',
    '    postgres-default:',
    ...datastore(state, DATABASES.temporal, 20),
    '    postgres-visibility:',
    ...datastore(state, DATABASES.visibility, 10),
    'global:',
    '  membership:',
    '    maxJoinDuration: 30s',
    '    broadcastAddress: "127.0.0.1"',
    ...(tls === undefined ? [] : serverTlsLines(tls)),
    'services:',
    ...service('frontend', ports.frontend, ports.frontendMembership, [
      `      httpPort: ${ports.frontendHttp}`,
    ]),
    ...service('matching', ports.matching, ports.matchingMembership),
    ...service('history', ports.history, ports.historyMembership),
    ...service('worker', ports.worker, ports.workerMembership),
    'clusterMetadata:',
    '  enableGlobalNamespace: false',
    '  failoverVersionIncrement: 10',
    '  masterClusterName: "active"',
    '  currentClusterName: "active"',
    '  clusterInformation:',
    '    active:',
    '      enabled: true',
    '      initialFailoverVersion: 1',
    '      rpcName: "frontend"',
    `      rpcAddress: "127.0.0.1:${ports.frontend}"`,
    'dcRedirectionPolicy:',
    '  policy: "noop"',
    'dynamicConfigClient:',
    `  filepath: "${dynamicConfigFile}"`,
    '  pollInterval: "10s"',
    '',
  ].join('\n');
}

/** Dynamic config: search attributes usable as soon as they are added (as on the dev server). */
const DYNAMIC_CONFIG = [
  'system.forceSearchAttributesCacheRefreshOnRead:',
  '  - value: true',
  'frontend.enableUpdateWorkflowExecution:',
  '  - value: true',
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted:',
  '  - value: true',
  '',
].join('\n');

/** What the server's command line holds and no other process's does (checked before signalling it). */
export function serverMarker(paths: ClusterPaths): string {
  return `--root ${paths.dir} --config`;
}

/** Writes the config directory; returns the arguments that start the server on it. */
export function writeServerConfig(paths: ClusterPaths, state: ClusterState): string[] {
  mkdirSync(paths.serverConfigDir, { recursive: true, mode: 0o700 });
  const dynamicConfigFile = path.join(paths.serverConfigDir, 'dynamic-config.yaml');
  writeFileSync(dynamicConfigFile, DYNAMIC_CONFIG, { mode: 0o600 });
  writeFileSync(
    path.join(paths.serverConfigDir, `${CONFIG_ENV}.yaml`),
    renderServerConfig(state, dynamicConfigFile, clusterCertificates(paths, state)),
    { mode: 0o600 },
  );
  return [
    '--root',
    paths.dir,
    '--config',
    path.relative(paths.dir, paths.serverConfigDir), // relative to --root,
    '--env',
    CONFIG_ENV,
    '--allow-no-auth',
    'start',
  ];
}
