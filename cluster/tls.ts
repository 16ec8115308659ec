// How the native cluster's parts use its mutual-TLS certificates (cluster/certificates.ts):
// the server's `global.tls` section, the environment a client needs
// (Temporal's standard TEMPORAL_TLS_* variables, printed by `up` and `status`), and the connection
// settings of the cluster's own clients. The cluster's clients read that same environment through
// worker/connection.ts, as every worker and CLI does, so what `up` prints is what `up` itself uses.
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { temporalConnectionSettings, type TemporalSettings } from '../worker/connection';
import { TLS_SERVER_NAME, certificateFiles, type ClusterCertificates } from './certificates';
import { frontendAddress } from './service-readiness';
import type { ClusterPaths, ClusterState } from './state';

/** The cluster's certificate files, or undefined for a cluster without mTLS. */
export function clusterCertificates(
  paths: ClusterPaths,
  state: ClusterState,
): ClusterCertificates | undefined {
  return state.mtls ? certificateFiles(paths.tlsDir) : undefined;
}

/**
 * The server config's `global.tls` (two-space indented, under `global:`): the frontend and the
 * internode ports require a client certificate. The frontend accepts the client CA's and the
 * server CA's (the system worker presents the server's own certificate); the internode ports only
 * the server CA's.
 */
export function serverTlsLines(files: ClusterCertificates): string[] {
  const server = (clientCas: string[]) => [
    '      server:',
    `        certFile: "${files.serverCert}"`,
    `        keyFile: "${files.serverKey}"`,
    '        requireClientAuth: true',
    '        clientCaFiles:',
    ...clientCas.map((ca) => `          - "${ca}"`),
  ];
  const client = (indent: string) => [
    `${indent}client:`,
    `${indent}  serverName: "${TLS_SERVER_NAME}"`,
    `${indent}  rootCaFiles:`,
    `${indent}    - "${files.serverCa}"`,
  ];
  return [
    '  tls:',
    '    internode:',
    ...server([files.serverCa]),
    ...client('      '),
    '    frontend:',
    ...server([files.clientCa, files.serverCa]),
    ...client('      '),
    '    systemWorker:',
    `      certFile: "${files.serverCert}"`,
    `      keyFile: "${files.serverKey}"`,
    ...client('      '),
  ];
}

/**
 * What a client of the cluster needs in its environment: the address and namespace, and with mTLS
 * Temporal's standard TLS variables (paths only; the key never leaves its file).
 */
export function clusterClientEnv(paths: ClusterPaths, state: ClusterState): Record<string, string> {
  const files = clusterCertificates(paths, state);
  return {
    TEMPORAL_ADDRESS: frontendAddress(state),
    TEMPORAL_NAMESPACE: state.namespace,
    ...(files === undefined
      ? {}
      : {
          TEMPORAL_TLS_CLIENT_CERT_PATH: files.clientCert,
          TEMPORAL_TLS_CLIENT_KEY_PATH: files.clientKey,
          TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.serverCa,
          TEMPORAL_TLS_SERVER_NAME: TLS_SERVER_NAME,
        }),
  };
}

/**
 * The settings of the cluster's own clients (namespace setup, `status`): the printed environment
 * read by worker/connection.ts. That environment holds no HOME, XDG_CONFIG_HOME or
 * TEMPORAL_CONFIG_FILE, so no profile file of the user's applies.
 */
export function clusterClientSettings(paths: ClusterPaths, state: ClusterState): TemporalSettings {
  return temporalConnectionSettings({ env: clusterClientEnv(paths, state) });
}

/**
 * The TLS options of the readiness probes, which call the internode ports too: the server's own
 * certificate (the only one those ports accept). Undefined without mTLS.
 */
export function probeTls(paths: ClusterPaths, state: ClusterState): TLSConfig | undefined {
  const files = clusterCertificates(paths, state);
  if (files === undefined) return undefined;
  return {
    serverNameOverride: TLS_SERVER_NAME,
    serverRootCACertificate: readFileSync(files.serverCa),
    clientCertPair: { crt: readFileSync(files.serverCert), key: readFileSync(files.serverKey) },
  };
}
