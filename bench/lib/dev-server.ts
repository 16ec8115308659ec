// A Temporal dev server for benchmarks on a free 127.0.0.1 port, optionally on a SQLite file so it
// can be restarted (chaos round two) without losing workflows: the local stack's server
// (stack/local-temporal.ts), supervised so it never outlives the benchmark. Several
// benchmarks of one process share one (`startBenchStack({ server })`).
import { startLocalTemporal, type LocalTemporalOptions } from '../../stack/local-temporal';
import { temporalExecutable } from './repo';

export interface DevServer {
  readonly address: string;
  /** The guard's pid (its process group holds the server). */
  pid(): number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  dbFile?: string;
  /** Server settings (`--dynamic-config-value key=value`), e.g. eager activity dispatch. */
  dynamicConfig?: Record<string, string | number | boolean>;
}

/** How benchmarks start a dev server (quiet, patient on a busy machine). */
export function devServerOptions(options: DevServerOptions = {}): LocalTemporalOptions {
  return {
    executable: temporalExecutable(),
    dbFile: options.dbFile,
    dynamicConfig: options.dynamicConfig,
    logLevel: 'error',
    startTimeoutMs: 90_000,
  };
}

export function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  return startLocalTemporal(devServerOptions(options));
}
