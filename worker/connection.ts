// The one builder of Temporal connection options, for the worker's NativeConnection and for every
// client Connection (CLI, dev stack, cluster probes, benchmarks, tests). Two sources:
//   - temporalConnectionSettings: Temporal's standard environment variables and profiles (the
//     same ones the `temporal` CLI reads: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
//     TEMPORAL_TLS*, TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE, TEMPORAL_GRPC_META_*), with the
//     address and namespace tideline resolved (worker/shared-settings.ts) laid over them;
//   - localConnectionSettings: a server tideline started itself, reached by address alone, so
//     that a user's profile (TLS, API key) never applies to it.
// The SDK is loaded on first use only: the CLI imports this module and `--help` must stay fast.
/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded on first use */
import { inspect } from 'node:util';
import type { Client, Connection, ConnectionOptions, WorkflowClientInterceptor } from '@temporalio/client';
import type { NativeConnection, NativeConnectionOptions } from '@temporalio/worker';
import type { EncryptionKeyRing } from './encryption-keys';
import { WorkerError } from './errors';
import { SHARED_DEFAULTS } from './shared-settings';

export const DEFAULT_TEMPORAL_ADDRESS = SHARED_DEFAULTS.address;
export const DEFAULT_NAMESPACE = SHARED_DEFAULTS.namespace;

export interface TemporalSettings {
  /** Options for `NativeConnection.connect` (worker) and `Connection.connect` (client). */
  connection: NativeConnectionOptions & { address: string };
  namespace: string;
}

/** Temporal's env config or profile file could not be read; the message quotes no secret. */
export class TemporalSettingsError extends Error {
  constructor(readonly reason: string) {
    super(`invalid Temporal connection settings: ${reason}`);
    this.name = 'TemporalSettingsError';
  }
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

/** Settings whose inspect and JSON forms are the summary above, so a log line never holds the API key. */
function withSafeDisplay(settings: TemporalSettings): TemporalSettings {
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

/** Secret variables whose values are cut out of a loader's message, should it quote them. */
const SECRET_VARIABLES = ['TEMPORAL_API_KEY', 'TEMPORAL_TLS_CLIENT_KEY_DATA'] as const;

function scrubbed(message: string, env: NodeJS.ProcessEnv): string {
  let text = message;
  for (const name of SECRET_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value.length >= 4) text = text.split(value).join(`<${name}>`);
  }
  return text;
}

export interface TemporalConnectionInput {
  env: NodeJS.ProcessEnv;
  /** Resolved by worker/shared-settings.ts; undefined leaves the choice to the profile, then the default. */
  address?: string | undefined;
  namespace?: string | undefined;
}

/**
 * Connection settings from Temporal's env config and profiles with tideline's address and
 * namespace over them. Throws TemporalSettingsError when the env config or profile is invalid.
 */
export function temporalConnectionSettings(input: TemporalConnectionInput): TemporalSettings {
  const { loadClientConnectConfig } =
    require('@temporalio/envconfig') as typeof import('@temporalio/envconfig');
  const env = definedOnly(input.env);
  if (input.address !== undefined) env.TEMPORAL_ADDRESS = input.address;
  if (input.namespace !== undefined) env.TEMPORAL_NAMESPACE = input.namespace;
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: env });
  } catch (error) {
    throw new TemporalSettingsError(scrubbed(error instanceof Error ? error.message : String(error), env));
  }
  return withSafeDisplay({
    connection: {
      ...withoutUndefined(loaded.connectionOptions),
      address: loaded.connectionOptions.address ?? DEFAULT_TEMPORAL_ADDRESS,
    },
    namespace: loaded.namespace ?? DEFAULT_NAMESPACE,
  });
}

/** A server tideline runs itself (dev stack, native cluster, tests): its address, no profile, no TLS. */
export function localConnectionSettings(
  address: string,
  namespace: string = DEFAULT_NAMESPACE,
): TemporalSettings {
  return withSafeDisplay({ connection: { address }, namespace });
}

/** The worker's settings from the environment alone; invalid ones are TIDELINE_CONFIG_INVALID. */
export function loadTemporalSettings(
  options: { env?: NodeJS.ProcessEnv; address?: string; namespace?: string } = {},
): TemporalSettings {
  try {
    return temporalConnectionSettings({ ...options, env: options.env ?? process.env });
  } catch (error) {
    if (!(error instanceof TemporalSettingsError)) throw error;
    throw new WorkerError(
      'TIDELINE_CONFIG_INVALID',
      `invalid Temporal connection settings (TEMPORAL_* variables or profile file): ${error.reason}`,
    );
  }
}

/** The worker's connection (Rust core). */
export function connectWorker(settings: TemporalSettings): Promise<NativeConnection> {
  const { NativeConnection } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  return NativeConnection.connect(settings.connection);
}

/** Client-only options over the settings: a connect deadline, interceptors. */
export type ClientConnectionExtras = Pick<ConnectionOptions, 'connectTimeout' | 'interceptors'>;

/** The options for a client connection with the same settings as the worker's. */
export function clientConnectionOptions(
  settings: TemporalSettings,
  extras: ClientConnectionExtras = {},
): ConnectionOptions {
  return { ...settings.connection, ...withoutUndefined(extras) };
}

/** A client connection with the same settings (CLI, dev stack, probes, tests). */
export function connectClient(
  settings: TemporalSettings,
  extras: ClientConnectionExtras = {},
): Promise<Connection> {
  const { Connection } = require('@temporalio/client') as typeof import('@temporalio/client');
  return Connection.connect(clientConnectionOptions(settings, extras));
}

/**
 * A client of the settings' namespace whose payloads pass through the worker's codec with
 * `keyRing` (every client of a namespace needs the worker's keys). Close `client.connection`.
 */
export async function connectCodecClient(
  settings: TemporalSettings,
  keyRing: EncryptionKeyRing,
  extras: ClientConnectionExtras = {},
  workflowInterceptors: WorkflowClientInterceptor[] = [],
): Promise<Client> {
  const { Client } = require('@temporalio/client') as typeof import('@temporalio/client');
  const { createDataConverter } = require('./codec') as typeof import('./codec');
  const connection = await connectClient(settings, extras);
  return new Client({
    connection,
    namespace: settings.namespace,
    dataConverter: createDataConverter(keyRing),
    ...(workflowInterceptors.length > 0 && { interceptors: { workflow: workflowInterceptors } }),
  });
}
