// `npm run worker` (node dist/worker/main.js): reads the configuration, installs the runtime,
// and runs the worker until SIGINT/SIGTERM. Prints "tideline worker ready" once polling starts.
// Exit codes: 0 after a graceful stop, 2 for bad configuration (also: the namespace does not
// exist or lacks tideline's search attributes), 1 for anything else.
import { inspect } from 'node:util';
import { describeWorkerConfig, loadWorkerConfig, configSecrets } from './config';
import { describeTemporalSettings, loadTemporalSettings } from './connection';
import { loadEncryptionKeys } from './key-store';
import { installRuntime } from './runtime';
import { startTracing, tracingSettingsFromEnv, type TracingSettings } from './tracing';
import { createTidelineWorker } from './worker';

export const READY_LINE = 'tideline worker ready';

function hasCode(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

function summary(value: unknown): string {
  return inspect(value, { depth: 4, breakLength: Infinity, compact: true });
}

/** The start-up line about tracing: where spans go (without credentials or query) and as whom. */
export function describeTracing(settings: TracingSettings): string {
  const url = new URL(settings.url); // checked by tracingSettingsFromEnv
  return `tracing: spans to ${url.protocol}//${url.host}${url.pathname} (OTLP/HTTP JSON) as service "${settings.serviceName}"`;
}

export async function runWorkerProcess(
  options: { env?: NodeJS.ProcessEnv; log?: (line: string) => void } = {},
): Promise<number> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  let setup;
  try {
    const config = loadWorkerConfig({ env });
    const temporal = loadTemporalSettings({
      env: {
        ...(config.temporal.address ? { TEMPORAL_ADDRESS: config.temporal.address } : {}),
        ...(config.temporal.namespace ? { TEMPORAL_NAMESPACE: config.temporal.namespace } : {}),
        ...env,
      },
    });
    const keys = loadEncryptionKeys({ env, notice: log });
    const tracingSettings = tracingSettingsFromEnv(env);
    setup = { config, temporal, keys, tracingSettings };
  } catch (error) {
    if (hasCode(error) && error.code.startsWith('TIDELINE_')) {
      log(`tideline worker: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const { config, temporal, keys, tracingSettings } = setup;

  const secrets = configSecrets(config);
  installRuntime({
    metricsAddress: config.metricsAddress,
    secrets: [...secrets, temporal.connection.apiKey],
  });
  const tracing = tracingSettings && startTracing(tracingSettings, [...secrets, temporal.connection.apiKey]);
  let worker;
  try {
    worker = await createTidelineWorker(config, {
      keyRing: keys.keyRing,
      temporal,
      log,
      ...(tracing && { tracing }),
    });
  } catch (error) {
    await tracing?.shutdown();
    if (
      hasCode(error) &&
      (error.code === 'TIDELINE_NAMESPACE_NOT_FOUND' || error.code === 'TIDELINE_SEARCH_ATTRIBUTES_MISSING')
    ) {
      log(`tideline worker: ${error.message}`);
      return 2;
    }
    const reason = error instanceof Error ? error.message : String(error);
    log(`tideline worker: could not start: ${reason} (Temporal at ${temporal.connection.address})`);
    return 1;
  }
  log(`tideline worker: temporal ${summary(describeTemporalSettings(temporal))}`);
  log(`tideline worker: config ${summary(describeWorkerConfig(config))}`);
  log(`tideline worker: payload encryption key "${keys.keyRing.currentKeyId}" (${keys.source})`);
  if (config.metricsAddress) log(`tideline worker: metrics on http://${config.metricsAddress}/metrics`);
  if (tracingSettings) log(`tideline worker: ${describeTracing(tracingSettings)}`);
  log(`${READY_LINE}: task queue "${worker.taskQueue}", namespace "${worker.namespace}"`);
  try {
    await worker.run();
  } finally {
    // The spans still buffered (the run spans of runs that just ended) go out before the exit.
    await tracing?.shutdown();
  }
  log('tideline worker: stopped');
  return 0;
}

if (require.main === module) {
  runWorkerProcess().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`tideline worker: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
