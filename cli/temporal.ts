// The CLI's Temporal client: the resolved settings (cli/settings.ts), Temporal's own TEMPORAL_*
// variables and profiles for TLS and API keys, built into a connection by worker/connection.ts
// as the worker's is, and the payload encryption keys shared with the worker. Every
// @temporalio import is lazy, so `tideline --help` and `validate` never load the SDK. Connection
// and lookup failures become CliErrors with a one-line diagnosis and what to try.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily: `--help` and `validate` never load the SDK */
import type { Client } from '@temporalio/client';
import type { EncryptionKeyRing } from '../worker/encryption-keys';
import type { CliContext } from './context';
import { CliError } from './errors';
import { resolveSettings, type CliSettings } from './settings';

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
  const { connectCodecClient, temporalConnectionSettings, TemporalSettingsError } =
    require('../worker/connection') as typeof import('../worker/connection');
  let temporal: ReturnType<typeof temporalConnectionSettings>;
  try {
    temporal = temporalConnectionSettings({
      env: ctx.env,
      address: settings.address,
      namespace: settings.namespace,
    });
  } catch (error) {
    if (!(error instanceof TemporalSettingsError)) throw error;
    throw new CliError(
      'CLI_USAGE',
      error.message,
      'check the TEMPORAL_* variables and your Temporal profile',
    );
  }
  const target: TemporalTarget = {
    address: temporal.connection.address,
    namespace: temporal.namespace,
    taskQueue: settings.taskQueue,
  };
  const { traceContextFromEnv, traceContextInterceptor } =
    require('./trace-context') as typeof import('./trace-context');
  const trace = traceContextFromEnv(ctx.env, (line) => ctx.stderr.write(`${line}\n`));
  let client: Client;
  try {
    client = await connectCodecClient(
      temporal,
      keyRing,
      { connectTimeout: CONNECT_TIMEOUT },
      trace === undefined ? [] : [traceContextInterceptor(trace)],
    );
  } catch (error) {
    throw unavailable(target, error);
  }
  return { client, target, settings, keyRing, close: () => client.connection.close() };
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

const GRPC_INVALID_ARGUMENT = 3;
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_PERMISSION_DENIED = 7;
const GRPC_UNIMPLEMENTED = 12;
const GRPC_INTERNAL = 13;
const GRPC_UNAVAILABLE = 14;
const GRPC_UNAUTHENTICATED = 16;

/** The gRPC reason of a failure, one line, without the `12 UNIMPLEMENTED: ` prefix. */
function grpcReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).replace(/^\d+ [A-Z_]+: /, '');
}

/** Something answered at the address, but not Temporal (a web server, a proxy, another gRPC service). */
function notTemporal(target: TemporalTarget, error: unknown): CliError {
  return new CliError(
    'TEMPORAL_UNAVAILABLE',
    `the server at ${target.address} does not answer as a Temporal frontend (${grpcReason(error)})`,
    "point --address / TEMPORAL_ADDRESS at Temporal's gRPC frontend (port 7233 by default; not the Web UI's 8233, not a proxy that does not pass gRPC)",
  );
}

/** A gRPC status as a CliError (undefined for codes a command explains itself). */
function explainGrpcStatus(link: unknown, target: TemporalTarget): CliError | undefined {
  const code = (link as { code?: unknown }).code;
  const reason = grpcReason(link);
  if (code === GRPC_UNAVAILABLE || code === GRPC_DEADLINE_EXCEEDED) return unavailable(target, link);
  if (code === GRPC_UNIMPLEMENTED) return notTemporal(target, link);
  if (code === GRPC_INTERNAL && /HTTP status|protocol error|RST_STREAM|content-type/i.test(reason))
    return notTemporal(target, link);
  if (code === GRPC_UNAUTHENTICATED || code === GRPC_PERMISSION_DENIED) {
    return new CliError(
      'TEMPORAL_UNAVAILABLE',
      `Temporal at ${target.address} refused the connection's credentials (${reason})`,
      "check TEMPORAL_API_KEY / TLS settings or your Temporal profile, and the namespace's permissions",
    );
  }
  if (code === GRPC_INVALID_ARGUMENT) {
    return new CliError(
      'CLI_USAGE',
      `Temporal refused the request: ${reason}`,
      'check the id and options given',
    );
  }
  return undefined;
}

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
    const grpc = explainGrpcStatus(link, target);
    if (grpc) return grpc;
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
