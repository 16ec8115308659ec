// `tideline worker`: the worker process in the foreground (worker/main.ts's runWorkerProcess),
// with the CLI's connection settings (flags > env > config file) handed to it. It polls the task
// queue until Ctrl-C / SIGTERM, then drains gracefully.
/* eslint-disable @typescript-eslint/no-require-imports -- the worker SDK loads only when used */
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { settingsEnvironment } from '../settings';

export const WORKER_SPEC = {
  name: 'worker',
  usage: '[--metrics HOST:PORT]',
  description: [
    'Polls the task queue and runs the runbook interpreter and the Cloud API activities. The Cloud',
    'API endpoint and credentials come from the config file (--config / TIDELINE_CONFIG: cloud.baseUrl',
    'and cloud.projects) or from TIDELINE_CLOUD_URL, TIDELINE_CLOUD_PROJECT_ID, TIDELINE_CLOUD_ACCESS_KEY',
    'and TIDELINE_CLOUD_SECRET_KEY, or TIDELINE_CLOUD_BEARER_TOKEN instead of the key pair (plus',
    'TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK=1 for the local cloud).',
    'Payload keys: TIDELINE_ENCRYPTION_KEYS or TIDELINE_KEY_FILE — the same keys as every client.',
    'Start more workers on the same task queue to scale out. Ctrl-C / SIGTERM stop it gracefully.',
    'Exits 2 at once, with one line, when the configuration is invalid or the namespace does not exist.',
  ],
  options: { metrics: { type: 'string' } },
  optionHelp: [
    [
      '--metrics HOST:PORT',
      'serve Prometheus metrics at http://HOST:PORT/metrics (env TIDELINE_METRICS_ADDRESS)',
    ],
  ],
  examples: [
    'TIDELINE_CONFIG=worker.yaml tideline worker',
    'tideline worker --address temporal.internal:7233 --task-queue tideline-prod --metrics 0.0.0.0:9464',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

export const workerCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(WORKER_SPEC, argv, ctx);
  const env = settingsEnvironment(ctx);
  if (parsed.values.metrics !== undefined) env.TIDELINE_METRICS_ADDRESS = parsed.values.metrics;
  const { runWorkerProcess } = require('../../worker/main') as typeof import('../../worker/main');
  return runWorkerProcess({ env, log: (line) => ctx.stderr.write(`${line}\n`) });
};
