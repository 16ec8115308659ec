// `tideline simulator`: the local cloud, in the foreground, with the same flags and output
// contract as `npm run simulator`: the FIRST stdout line is one JSON object with the URL and the
// projects' key pairs; it runs until Ctrl-C / SIGTERM and then stops cleanly.
/* eslint-disable @typescript-eslint/no-require-imports -- the simulator loads only when used */
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { waitForStopSignal } from '../dev-stack/stop-signal';
import { CliError, EXIT } from '../errors';
import { renderCommandHelp } from '../output/help';

export const SIMULATOR_SPEC = {
  name: 'simulator',
  usage: '[--host 127.0.0.1] [--port 0] [--config FILE] [--time-scale X] [--seed N] [--state-file FILE]',
  summary: 'run the local cloud (a faithful Cloud API for rehearsals)',
  description: [
    'The first stdout line is one JSON object: {"url": …, "projects": [{"id", "name", "access_key",',
    '"secret_key"}]} — the key pairs are development credentials of this local cloud only. Point a',
    'worker at it with TIDELINE_CLOUD_URL=<url> TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK=1 and the',
    'TIDELINE_CLOUD_PROJECT_ID / _ACCESS_KEY / _SECRET_KEY of a project. Here --config names the',
    "local cloud's config file (projects, durations, faults), not tideline's.",
  ],
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    config: { type: 'string' },
    'time-scale': { type: 'string' },
    seed: { type: 'string' },
    'state-file': { type: 'string' },
  },
  optionHelp: [
    ['--host HOST', 'interface to bind (default 127.0.0.1)'],
    ['--port N', 'port (default 0: any free port)'],
    ['--config FILE', 'local cloud config: seed, timeScale, projects, durations, faults'],
    ['--time-scale X', 'multiplies every duration (0.1 = ten times faster)'],
    ['--seed N', 'makes ids and fault draws deterministic'],
    ['--state-file FILE', 'keep resources and key pairs across restarts'],
  ],
  examples: [
    'tideline simulator',
    'tideline simulator --port 8080 --time-scale 0.1 --state-file .tideline/cloud.json',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

function numberFlag(
  flag: string,
  text: string | undefined,
  check: (n: number) => boolean,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !check(value)) {
    throw new CliError(
      'CLI_USAGE',
      `--${flag}: invalid value ${JSON.stringify(text)}`,
      'see `tideline simulator --help`',
    );
  }
  return value;
}

export const simulatorCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(SIMULATOR_SPEC, argv, ctx);
  if (parsed.help) {
    ctx.stdout.write(renderCommandHelp(SIMULATOR_SPEC));
    return EXIT.OK;
  }
  const { values } = parsed;
  const { startLocalCloud } = require('../../simulator/server') as typeof import('../../simulator/server');
  type Options = Parameters<typeof startLocalCloud>[0] & object;
  const options: Options = { host: values.host ?? '127.0.0.1' };
  const port = numberFlag('port', values.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535);
  const timeScale = numberFlag('time-scale', values['time-scale'], (n) => n > 0 && n <= 1000);
  const seed = numberFlag('seed', values.seed, (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32);
  if (port !== undefined) options.port = port;
  if (timeScale !== undefined) options.timeScale = timeScale;
  if (seed !== undefined) options.seed = seed;
  if (values.config !== undefined) options.configFile = values.config;
  if (values['state-file'] !== undefined) options.stateFile = values['state-file'];

  // Listen before starting: a supervisor may send SIGTERM as soon as it reads the first line.
  const stop = waitForStopSignal(ctx);
  try {
    let cloud: Awaited<ReturnType<typeof startLocalCloud>>;
    try {
      cloud = await startLocalCloud(options);
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      const message = error instanceof Error ? error.message : String(error);
      if (name === 'SimulatorConfigError' || name === 'StateFileError')
        throw new CliError('CLI_USAGE', `local cloud: ${message}`);
      const code = (error as NodeJS.ErrnoException).code;
      throw new CliError(
        'CLI_INTERNAL',
        `the local cloud could not start: ${code ? `${code} ` : ''}${message}`,
      );
    }
    const projects = cloud.projects.map(({ id, name, access_key, secret_key }) => ({
      id,
      name,
      access_key,
      secret_key,
    }));
    ctx.stdout.write(`${JSON.stringify({ url: cloud.url, projects })}\n`);
    ctx.stderr.write(
      `tideline simulator: local cloud listening on ${cloud.url} (control API ${cloud.controlUrl}, seed ${cloud.seed})\n`,
    );
    const signal = await stop.received;
    ctx.stderr.write(`tideline simulator: ${signal} received, stopping\n`);
    await cloud.close();
    return EXIT.OK;
  } finally {
    stop.dispose();
  }
};
