// The local stack of `tideline dev` and `demo` (stack.ts, with the Web UI and its codec server on),
// and a tideline worker in this process configured with the local cloud's credentials. Used by
// `tideline dev` (usual ports when free) and `tideline demo` (always free ports).
//
//   const stack = await startDevStack({ env, namespace: 'default', taskQueue: 'tideline', log });
//   … stack.temporal.address, stack.temporal.webUiUrl, stack.cloud.url, stack.cloud.projects …
//   await stack.close();
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Dialect, LocalCloud } from '../local-cloud/server';
import { configSecrets } from '../worker/config';
import type { EncryptionKeyRing } from '../worker/encryption-keys';
import { loadEncryptionKeys, type KeySource } from '../worker/key-store';
import { createRedactingLogger } from '../worker/redacting-logger';
import { startCodecServer } from '../worker/codec-server';
import { codecToken } from './codec-token';
import { localCloudWorkerConfig } from './local-cloud';
import { choosePort } from './ports';
import { startLocalStack, type LocalStack } from './stack';
import { resolveTemporalExecutable } from './temporal-binary';
import { writeUiCodecEnvFile, type UiCodecEnvFile } from './temporal-dev-server';

export const USUAL_TEMPORAL_PORT = 7233;

/** A cloud that is never called: the config file's check before the local cloud is up. */
const PLACEHOLDER_CLOUD = {
  url: 'http://127.0.0.1:1/public/api/v1',
  projectId: 'placeholder',
  accessKey: 'placeholder',
  secretKey: 'placeholder',
};
export const USUAL_UI_PORT = 8233;

export interface DevStackOptions {
  /** Where the encryption keys and the `temporal` binary are looked up (never the worker's cloud settings). */
  env: NodeJS.ProcessEnv;
  namespace: string;
  taskQueue: string;
  /** Explicit ports (must be free; 0 = any). */
  port?: number | undefined;
  uiPort?: number | undefined;
  cloudPort?: number | undefined;
  /** Try 7233/8233 first when no port is given (`tideline dev`); the demo takes free ports. */
  preferUsualPorts: boolean;
  /** Keeps workflows (SQLite) and the local cloud's state (`<file>.cloud.json`) across restarts. */
  dbFile?: string | undefined;
  /** The local cloud's pace; 1 = realistic (a create takes ~3 s). */
  timeScale?: number | undefined;
  /** The dialect the local cloud answers in (default: its config's, `current`). */
  dialect?: Dialect | undefined;
  /** Start a codec server for the Web UI (default true; `tideline dev --no-codec-server` turns it off). */
  codecServer?: boolean;
  /**
   * The worker configuration file (`tideline dev --config`): the worker honours all of it but the
   * cloud's endpoint and credentials (the local cloud's) and refuses, by key, what it cannot honour.
   */
  configFile?: string | undefined;
  /** Worker log level (the SDK's logger, on stderr). Default WARN. */
  workerLogLevel?: LogLevel;
  /** Progress lines while starting and stopping. */
  log: (line: string) => void;
}

export interface DevStack {
  readonly temporal: { address: string; namespace: string; webUiUrl: string; dbFile: string | undefined };
  readonly cloud: LocalCloud;
  readonly cloudStateFile: string | undefined;
  readonly taskQueue: string;
  readonly keys: { keyRing: EncryptionKeyRing; source: KeySource; file: string | undefined };
  /**
   * The codec server the Web UI decrypts payloads with (absent with `codecServer: false`). Every
   * request needs its token (`Authorization: Bearer`, TIDELINE_CODEC_TOKEN when set) or comes
   * through the capability endpoint only the Web UI is given.
   */
  readonly codec: { endpoint: string } | undefined;
  /** Settles when the worker stops; rejects if it failed. */
  readonly workerStopped: Promise<void>;
  /** A client of the dev server with the same encryption keys as the worker (closed with the stack). */
  readonly client: Client;
  /** Stops worker, local cloud and server, in that order. Safe to call twice. */
  close(): Promise<void>;
}

/** The SDK runtime: logs through the secret-scrubbing logger; signals are the CLI's business. */
function installRuntime(level: LogLevel, secrets: string[], metricsAddress: string | undefined): void {
  if (Runtime._instance !== undefined) return;
  Runtime.install({
    logger: createRedactingLogger(new DefaultLogger(level), secrets),
    shutdownSignals: [],
    ...(metricsAddress !== undefined && {
      telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } },
    }),
  });
}

export async function startDevStack(options: DevStackOptions): Promise<DevStack> {
  // Checked first: a TIDELINE_CODEC_TOKEN too short to use is a usage error, before anything starts.
  const token =
    options.codecServer === false ? undefined : codecToken(options.env.TIDELINE_CODEC_TOKEN).token;
  // A config file the dev worker cannot take whole fails before anything starts (checked again,
  // with the local cloud's projects, once the cloud is up).
  if (options.configFile !== undefined) {
    localCloudWorkerConfig(PLACEHOLDER_CLOUD.url, [PLACEHOLDER_CLOUD], options.taskQueue, {
      configFile: options.configFile,
      notice: () => undefined,
    });
  }
  const keys = loadEncryptionKeys({ env: options.env, notice: options.log });
  const port = await choosePort({
    flag: '--port',
    explicit: options.port,
    preferred: options.preferUsualPorts ? USUAL_TEMPORAL_PORT : undefined,
  });
  const uiPort = await choosePort({
    flag: '--ui-port',
    explicit: options.uiPort,
    preferred: options.preferUsualPorts ? port + 1000 : undefined,
    taken: [port],
  });
  const cloudPort = await choosePort({
    flag: '--cloud-port',
    explicit: options.cloudPort,
    taken: [port, uiPort],
  });
  const executable = await resolveTemporalExecutable(options.env, options.log);

  // The Web UI decrypts through this codec server (same key ring as the worker), on 127.0.0.1, with
  // CORS for the UI's origins and for this namespace only. Every request needs the token, which the
  // dev UI cannot send (no login; the dev server gives it no includeCredentials or access-token
  // setting): the UI gets a capability endpoint instead, `/codec/t/<32 random bytes>`, through a
  // 0600 env file rather than the server's command line.
  const codec =
    token === undefined
      ? undefined
      : await startCodecServer({
          keyRing: keys.keyRing,
          token,
          pathSecret: randomBytes(32).toString('base64url'),
          host: '127.0.0.1',
          port: 0,
          allowedOrigins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
          namespaces: [options.namespace],
        });
  let uiCodec: UiCodecEnvFile | undefined;
  const cloudStateFile = options.dbFile !== undefined ? `${options.dbFile}.cloud.json` : undefined;
  let stack: LocalStack;
  try {
    uiCodec =
      codec?.capabilityEndpoint === undefined ? undefined : writeUiCodecEnvFile(codec.capabilityEndpoint);
    stack = await startLocalStack({
      temporal: {
        start: {
          executable,
          port,
          uiPort,
          uiCodecEnvFile: uiCodec?.file,
          dbFile: options.dbFile,
          namespaces: options.namespace === 'default' ? [] : [options.namespace],
        },
      },
      namespace: options.namespace,
      keyRing: keys.keyRing,
      cloud: {
        port: cloudPort,
        ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
        ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
        ...(cloudStateFile !== undefined ? { stateFile: cloudStateFile } : {}),
      },
    });
  } catch (error) {
    uiCodec?.remove();
    await codec?.close().catch(() => undefined);
    throw error;
  }
  if (codec !== undefined) stack.teardown.addLast(() => codec.close());
  // Kept while the server runs: a restart of it reads the file again.
  if (uiCodec !== undefined) stack.teardown.addLast(() => uiCodec.remove());
  const { cloud, server } = stack;
  try {
    // The local cloud's key pairs with the config file's other settings, never the environment.
    const config = stack.workerConfig(options.taskQueue, 'all', {
      configFile: options.configFile,
      notice: options.log,
    });
    installRuntime(options.workerLogLevel ?? 'WARN', configSecrets(config), config.metricsAddress);
    const worker = await stack.startInProcessWorker(config, { log: options.log });
    return {
      temporal: {
        address: stack.temporal.connection.address,
        namespace: options.namespace,
        webUiUrl: server?.webUiUrl ?? '',
        dbFile: options.dbFile,
      },
      cloud,
      cloudStateFile,
      taskQueue: options.taskQueue,
      keys: { keyRing: keys.keyRing, source: keys.source, file: keys.file },
      codec: codec === undefined ? undefined : { endpoint: codec.endpoint },
      workerStopped: worker.stopped,
      client: stack.client,
      close() {
        // A part that fails to stop does not stop the others, nor fail the CLI on its way out.
        return stack.close().catch(() => undefined);
      },
    };
  } catch (error) {
    await stack.close().catch(() => undefined);
    throw error;
  }
}
