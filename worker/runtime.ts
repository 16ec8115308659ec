// The process-wide Temporal runtime: shutdown on SIGINT/SIGTERM (workers drain, then `run()`
// resolves) and, when asked, a Prometheus endpoint for the SDK's metrics. Install once, before
// the first connection is made; only worker entry points call this.
import { DefaultLogger, Runtime, type RuntimeOptions } from '@temporalio/worker';
import { onUnknownValue } from '../cloud/unknown-values';
import { createRedactingLogger } from './redacting-logger';

export const SHUTDOWN_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

export interface RuntimeSettings {
  /** `host:port` for a Prometheus `/metrics` endpoint; off when absent. */
  metricsAddress?: string | undefined;
  /** Values scrubbed from every log line (the worker's configured secrets). */
  secrets?: Iterable<string | undefined>;
}

export function runtimeOptions(options: RuntimeSettings): RuntimeOptions {
  return {
    logger: createRedactingLogger(new DefaultLogger('INFO'), options.secrets ?? []),
    shutdownSignals: SHUTDOWN_SIGNALS,
    ...(options.metricsAddress
      ? { telemetryOptions: { metrics: { prometheus: { bindAddress: options.metricsAddress } } } }
      : {}),
  };
}

/**
 * Installs the runtime; enum values the Cloud API sends that this version does not know are then
 * reported through its logger (once per value per process).
 */
export function installRuntime(options: RuntimeSettings): Runtime {
  const runtime = Runtime.install(runtimeOptions(options));
  onUnknownValue((what, value) =>
    runtime.logger.warn(`the Cloud API sent a ${what} this version does not know; it is passed on as it is`, {
      what,
      value,
    }),
  );
  return runtime;
}
