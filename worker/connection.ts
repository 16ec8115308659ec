// Temporal connection settings, from Temporal's standard environment variables and profiles
// (the same ones the `temporal` CLI reads): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
// TEMPORAL_TLS*, TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE (TOML profiles), TEMPORAL_GRPC_META_*.
// Used by the worker and by every client (CLI, tests) so they all talk to the same place.
import { inspect } from 'node:util';
import { Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import { WorkerError } from './errors';

export const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';
export const DEFAULT_NAMESPACE = 'default';

export interface TemporalSettings {
  /** Options for `NativeConnection.connect` (worker) and `Connection.connect` (client). */
  connection: NativeConnectionOptions & { address: string };
  namespace: string;
}

/** A printable summary: address, namespace, whether TLS and an API key are used (never the key). */
export function describeTemporalSettings(settings: TemporalSettings): Record<string, unknown> {
  const { tls, apiKey, metadata } = settings.connection;
  return {
    address: settings.connection.address,
    namespace: settings.namespace,
    tls: tls === undefined || tls === false || tls === null ? 'off' : 'on',
    apiKey: apiKey === undefined ? 'none' : 'set',
    grpcMetadata: Object.keys(metadata ?? {}),
  };
}

export function loadTemporalSettings(options: { env?: NodeJS.ProcessEnv } = {}): TemporalSettings {
  const env = options.env ?? process.env;
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: definedOnly(env) });
  } catch (error) {
    throw new WorkerError(
      'TIDELINE_CONFIG_INVALID',
      `invalid Temporal connection settings (TEMPORAL_* variables or profile file): ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const settings: TemporalSettings = {
    connection: {
      ...withoutUndefined(loaded.connectionOptions),
      address: loaded.connectionOptions.address ?? DEFAULT_TEMPORAL_ADDRESS,
    },
    namespace: loaded.namespace ?? DEFAULT_NAMESPACE,
  };
  Object.defineProperty(settings, inspect.custom, {
    value: () => `TemporalSettings ${inspect(describeTemporalSettings(settings))}`,
    enumerable: false,
  });
  Object.defineProperty(settings, 'toJSON', {
    value: () => describeTemporalSettings(settings),
    enumerable: false,
  });
  return settings;
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) result[name] = value;
  return result;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The worker's connection (Rust core). */
export function connectWorker(settings: TemporalSettings): Promise<NativeConnection> {
  return NativeConnection.connect(settings.connection);
}

/** A client connection with the same settings (for the CLI and tests). */
export function connectClient(settings: TemporalSettings): Promise<Connection> {
  return Connection.connect(settings.connection);
}
