// The local cloud's command-line flags and how they become LocalCloudOptions, shared by its own
// CLI (local-cloud/main.ts) and `tideline local-cloud`. Loads nothing but types, so `tideline --help`
// can import it without starting to load the local cloud.
import type { Dialect } from './dialect';
import type { LocalCloudOptions } from './server';

export const LOCAL_CLOUD_USAGE =
  '[--host 127.0.0.1] [--port 0] [--config FILE] [--time-scale X] [--seed N] [--dialect seed|current] [--state-file FILE] [--no-control]';

export const LOCAL_CLOUD_FLAGS = {
  host: { type: 'string' },
  port: { type: 'string' },
  config: { type: 'string' },
  'time-scale': { type: 'string' },
  seed: { type: 'string' },
  /** Answer in spec.md's shape (`seed`, the default) or in the real API's newer one (`current`). */
  dialect: { type: 'string' },
  'state-file': { type: 'string' },
  /** Leaves the control API (/__sim) out: every path under it is a 404. */
  'no-control': { type: 'boolean' },
} as const;

type Flags = typeof LOCAL_CLOUD_FLAGS;
export type LocalCloudFlagValues = {
  [K in keyof Flags]?: (Flags[K]['type'] extends 'boolean' ? boolean : string) | undefined;
};

/** A flag value the local cloud cannot use; the message names the flag and the value. */
export class LocalCloudUsageError extends Error {
  readonly code = 'LOCAL_CLOUD_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'LocalCloudUsageError';
  }
}

function numberFlag(
  flag: string,
  text: string | undefined,
  check: (n: number) => boolean,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !check(value)) {
    throw new LocalCloudUsageError(`--${flag}: invalid value ${JSON.stringify(text)}`);
  }
  return value;
}

// Kept here rather than imported from dialect.ts: this module loads nothing but types.
const DIALECTS: readonly Dialect[] = ['seed', 'current'];

function dialectFlag(text: string | undefined): Dialect | undefined {
  if (text === undefined) return undefined;
  const dialect = DIALECTS.find((candidate) => candidate === text);
  if (dialect === undefined) {
    throw new LocalCloudUsageError(`--dialect: invalid value ${JSON.stringify(text)} (seed or current)`);
  }
  return dialect;
}

/** The options of `startLocalCloud` that the flags ask for; throws LocalCloudUsageError. */
export function localCloudOptionsFromFlags(values: LocalCloudFlagValues): LocalCloudOptions {
  const options: LocalCloudOptions = { host: values.host ?? '127.0.0.1' };
  const port = numberFlag('port', values.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535);
  const timeScale = numberFlag('time-scale', values['time-scale'], (n) => n > 0 && n <= 1000);
  const seed = numberFlag('seed', values.seed, (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32);
  if (port !== undefined) options.port = port;
  if (timeScale !== undefined) options.timeScale = timeScale;
  if (seed !== undefined) options.seed = seed;
  const dialect = dialectFlag(values.dialect);
  if (dialect !== undefined) options.dialect = dialect;
  if (values.config !== undefined) options.configFile = values.config;
  if (values['state-file'] !== undefined) options.stateFile = values['state-file'];
  if (values['no-control'] === true) options.control = false;
  return options;
}
