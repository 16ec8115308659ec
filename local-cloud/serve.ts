// Runs the local cloud in the foreground for a command line (local-cloud/main.ts and `tideline
// local-cloud`): the FIRST stdout line is one JSON object with the URL, the projects' key pairs and
// the control API's URL and token; nothing secret is printed after it, and the first stop signal
// closes it. Listening beyond loopback prints a warning that says what is exposed.
import { isIP } from 'node:net';
import { hasLocalCloudCode } from './error-codes';
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from './server';

export interface ServeIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Prefixes the lines on stderr, e.g. `local-cloud`. */
  name: string;
  /** Resolves with the signal's name once the cloud is to stop (may already have resolved). */
  stopRequested: Promise<string>;
}

/** The local cloud did not start; `badInput` when the config or state file is at fault. */
export class LocalCloudStartError extends Error {
  readonly code = 'LOCAL_CLOUD_START_FAILED';
  constructor(
    message: string,
    readonly badInput: boolean,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'LocalCloudStartError';
  }
}

export function isLocalCloudStartError(error: unknown): error is LocalCloudStartError {
  return hasLocalCloudCode(error, 'LOCAL_CLOUD_START_FAILED');
}

function isBadInput(error: unknown): boolean {
  return (
    hasLocalCloudCode(error, 'LOCAL_CLOUD_CONFIG_INVALID') ||
    hasLocalCloudCode(error, 'LOCAL_CLOUD_STATE_FILE_INVALID')
  );
}

function startError(error: unknown): LocalCloudStartError {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (isBadInput(error)) return new LocalCloudStartError(message, true, { cause: error });
  const prefix = code ? `${String(code)} ` : '';
  return new LocalCloudStartError(`${prefix}${message}`, false, { cause: error });
}

/** Whether an address (or `localhost`) reaches this machine only: 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (name === 'localhost') return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1' || name.startsWith('::ffff:127.');
}

/** The stderr warning for a local cloud listening beyond loopback; undefined on loopback. */
export function exposureWarning(
  name: string,
  host: string,
  cloud: Pick<LocalCloud, 'controlToken'>,
): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  const control =
    cloud.controlToken === null
      ? 'the control API is off (--no-control)'
      : 'so is the control API (/__sim: reset wipes every resource, faults, state), guarded only by its token; --no-control turns it off';
  return (
    `${name}: WARNING: listening on ${host}, not a loopback address: other machines can reach the Cloud API ` +
    `(whoever has a project's key pair can create and delete resources); ${control}\n`
  );
}

/**
 * Starts the local cloud, prints the first line and where it listens, waits for the stop signal
 * and closes it. A failure to start is a LocalCloudStartError; one while closing is passed on.
 */
export async function serveLocalCloud(options: LocalCloudOptions, io: ServeIo): Promise<void> {
  const cloud = await startLocalCloud(options).catch((error: unknown) => {
    throw startError(error);
  });
  const projects = cloud.projects.map(({ id, name, access_key, secret_key }) => ({
    id,
    name,
    access_key,
    secret_key,
  }));
  const control = cloud.controlToken === null ? null : cloud.controlUrl;
  io.stdout.write(
    `${JSON.stringify({ url: cloud.url, projects, controlUrl: control, controlToken: cloud.controlToken })}\n`,
  );
  io.stderr.write(
    `${io.name}: local cloud listening on ${cloud.url} (control API ${control ?? 'off'}, seed ${cloud.seed})\n`,
  );
  const warning = exposureWarning(io.name, options.host ?? '127.0.0.1', cloud);
  if (warning !== undefined) io.stderr.write(warning);
  const signal = await io.stopRequested;
  io.stderr.write(`${io.name}: ${signal} received, stopping\n`);
  await cloud.close();
}
