// Runs the local cloud in the foreground for a command line (simulator/main.ts and `tideline
// simulator`): the FIRST stdout line is one JSON object with the URL and the projects' key pairs,
// nothing secret is printed after it, and the first stop signal closes it.
import { startLocalCloud, type LocalCloudOptions } from './server';

export interface ServeIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Prefixes the lines on stderr, e.g. `simulator`. */
  name: string;
  /** Resolves with the signal's name once the cloud is to stop (may already have resolved). */
  stopRequested: Promise<string>;
}

/** The local cloud did not start; `badInput` when the config or state file is at fault. */
export class LocalCloudStartError extends Error {
  readonly code = 'SIMULATOR_START_FAILED';
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
  return (error as { code?: unknown } | null)?.code === 'SIMULATOR_START_FAILED';
}

const BAD_INPUT_CODES: ReadonlySet<unknown> = new Set([
  'SIMULATOR_CONFIG_INVALID',
  'SIMULATOR_STATE_FILE_INVALID',
]);

function startError(error: unknown): LocalCloudStartError {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (BAD_INPUT_CODES.has(code)) return new LocalCloudStartError(message, true, { cause: error });
  const prefix = code ? `${String(code)} ` : '';
  return new LocalCloudStartError(`${prefix}${message}`, false, { cause: error });
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
  io.stdout.write(`${JSON.stringify({ url: cloud.url, projects })}\n`);
  io.stderr.write(
    `${io.name}: local cloud listening on ${cloud.url} (control API ${cloud.controlUrl}, seed ${cloud.seed})\n`,
  );
  const signal = await io.stopRequested;
  io.stderr.write(`${io.name}: ${signal} received, stopping\n`);
  await cloud.close();
}
