// The CLI's Temporal client: the resolved settings, Temporal's own TEMPORAL_* variables and
// profiles for TLS and API keys, and the payload encryption keys shared with the worker. Every
// @temporalio import is lazy, so `tideline --help` and `validate` never load the SDK. Connection
// and lookup failures become CliErrors with a one-line diagnosis and what to try.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily: `--help` and `validate` never load the SDK */
import type { Client } from '@temporalio/client';
import type { EncryptionKeyRing } from '../worker/encryption-keys';
import type { CliContext } from './context';
import { CliError } from './errors';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE, resolveSettings, type CliSettings } from './settings';

/** How long to try reaching the server before giving up with exit code 3. */
const CONNECT_TIMEOUT = '5s';

export interface TemporalTarget {
  address: string;
  namespace: string;
  taskQueue: string;
}

export interface TemporalSession {
  client: Client;
  target: TemporalTarget;
  settings: CliSettings;
  keyRing: EncryptionKeyRing;
  close(): Promise<void>;
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) result[name] = value;
  return result;
}

function loadKeys(ctx: CliContext): EncryptionKeyRing {
  const { loadEncryptionKeys } = require('../worker/key-store') as typeof import('../worker/key-store');
  try {
    return loadEncryptionKeys({ env: ctx.env, notice: (line) => ctx.stderr.write(`${line}\n`) }).keyRing;
  } catch (error) {
    throw keyError(error) ?? error;
  }
}

function keyError(error: unknown): CliError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'TIDELINE_ENCRYPTION_KEY_INVALID' || code === 'TIDELINE_KEY_FILE_INVALID') {
    return new CliError(
      'CLI_USAGE',
      `payload encryption keys: ${message}`,
      'check TIDELINE_ENCRYPTION_KEYS or TIDELINE_KEY_FILE',
    );
  }
  if (code === 'TIDELINE_ENCRYPTION_KEY_UNKNOWN' || code === 'TIDELINE_PAYLOAD_DECRYPT_FAILED') {
    return new CliError(
      'CLI_USAGE',
      `cannot decrypt the run's data: ${message}`,
      'use the same TIDELINE_ENCRYPTION_KEYS (or TIDELINE_KEY_FILE) as the worker',
    );
  }
  return undefined;
}

/** Connects a client with the worker's data converter; throws TEMPORAL_UNAVAILABLE if unreachable. */
export async function openTemporal(ctx: CliContext): Promise<TemporalSession> {
  const settings = resolveSettings(ctx);
  const keyRing = loadKeys(ctx);
  const { loadClientConnectConfig } =
    require('@temporalio/envconfig') as typeof import('@temporalio/envconfig');
  const env = definedOnly(ctx.env);
  if (settings.address !== undefined) env.TEMPORAL_ADDRESS = settings.address;
  if (settings.namespace !== undefined) env.TEMPORAL_NAMESPACE = settings.namespace;
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: env });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(
      'CLI_USAGE',
      `invalid Temporal connection settings: ${reason}`,
      'check the TEMPORAL_* variables and your Temporal profile',
    );
  }
  const target: TemporalTarget = {
    address: loaded.connectionOptions.address ?? DEFAULT_ADDRESS,
    namespace: loaded.namespace ?? DEFAULT_NAMESPACE,
    taskQueue: settings.taskQueue,
  };
  const connectionOptions = Object.fromEntries(
    Object.entries(loaded.connectionOptions).filter(([, value]) => value !== undefined),
  );
  const { Client, Connection } = require('@temporalio/client') as typeof import('@temporalio/client');
  const { createDataConverter } = require('../worker/codec') as typeof import('../worker/codec');
  let connection: Awaited<ReturnType<typeof Connection.connect>>;
  try {
    connection = await Connection.connect({
      ...connectionOptions,
      address: target.address,
      connectTimeout: CONNECT_TIMEOUT,
    });
  } catch (error) {
    throw unavailable(target, error);
  }
  const client = new Client({
    connection,
    namespace: target.namespace,
    dataConverter: createDataConverter(keyRing),
  });
  return { client, target, settings, keyRing, close: () => connection.close() };
}

function unavailable(target: TemporalTarget, error: unknown): CliError {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new CliError(
    'TEMPORAL_UNAVAILABLE',
    `cannot reach Temporal at ${target.address} (${reason})`,
    'start a local stack with `tideline dev` (or `temporal server start-dev`), or point --address / TEMPORAL_ADDRESS at your server',
  );
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < 6;) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/** Known failures of Temporal calls as CliErrors (undefined for anything else). */
export function explainTemporalError(error: unknown, target: TemporalTarget): CliError | undefined {
  for (const link of causes(error)) {
    if (link instanceof CliError) return link;
    const name = (link as { name?: unknown }).name;
    if (name === 'WorkflowNotFoundError') {
      const id = (link as { workflowId?: string }).workflowId ?? '';
      return new CliError(
        'RUN_NOT_FOUND',
        `no run with id "${id}" in namespace "${target.namespace}" at ${target.address}`,
        '`tideline list` shows the runs',
      );
    }
    if (name === 'NamespaceNotFoundError') {
      return new CliError(
        'TEMPORAL_UNAVAILABLE',
        `namespace "${target.namespace}" does not exist at ${target.address}`,
        'check --namespace / TEMPORAL_NAMESPACE (the dev server has "default")',
      );
    }
    const key = keyError(link);
    if (key) return key;
    const grpcCode = (link as { code?: unknown }).code;
    if (grpcCode === GRPC_UNAVAILABLE || grpcCode === GRPC_DEADLINE_EXCEEDED)
      return unavailable(target, link);
  }
  return undefined;
}

/** Runs `action` with a connected session, closes it, and turns known failures into CliErrors. */
export async function withTemporal<T>(
  ctx: CliContext,
  action: (session: TemporalSession) => Promise<T>,
): Promise<T> {
  const session = await openTemporal(ctx);
  try {
    return await action(session);
  } catch (error) {
    throw explainTemporalError(error, session.target) ?? error;
  } finally {
    await session.close().catch(() => undefined);
  }
}
