// `tideline local-cloud`: the local cloud, in the foreground, with the same flags and output
// contract as `npm run local-cloud` (both run local-cloud/cli-options.ts and local-cloud/serve.ts): the
// FIRST stdout line is one JSON object with the URL and the projects' key pairs; it runs until
// Ctrl-C / SIGTERM and then stops cleanly.
/* eslint-disable @typescript-eslint/no-require-imports -- the local cloud loads only when used */
import {
  localCloudOptionsFromFlags,
  LOCAL_CLOUD_FLAGS,
  LOCAL_CLOUD_USAGE,
} from '../../local-cloud/cli-options';
import { hasLocalCloudCode } from '../../local-cloud/error-codes';
import type { LocalCloudOptions } from '../../local-cloud/server';
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { waitForStopSignal } from '../stop-signal';
import { CliError, EXIT } from '../errors';

export const LOCAL_CLOUD_SPEC = {
  name: 'local-cloud',
  usage: LOCAL_CLOUD_USAGE,
  description: [
    'The first stdout line is one JSON object: {"url": …, "projects": [{"id", "name", "access_key",',
    '"secret_key"}], "controlUrl": …, "controlToken": …} — the key pairs are development credentials',
    'of this local cloud only; the control API (/__sim) wants `Authorization: Bearer <controlToken>`.',
    'A --host other than loopback prints a warning naming what it exposes. Point a',
    'worker at it with TIDELINE_CLOUD_URL=<url> TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK=1 and the',
    'TIDELINE_CLOUD_PROJECT_ID / _ACCESS_KEY / _SECRET_KEY of a project. Here --config names the',
    "local cloud's config file (projects, durations, faults), not tideline's.",
  ],
  options: LOCAL_CLOUD_FLAGS,
  optionHelp: [
    ['--host HOST', 'interface to bind (default 127.0.0.1)'],
    ['--port N', 'port (default 0: any free port)'],
    ['--config FILE', 'local cloud config: seed, timeScale, dialect, projects, durations, faults'],
    ['--time-scale X', 'multiplies every duration (0.1 = ten times faster)'],
    ['--seed N', 'makes ids and fault draws deterministic'],
    ['--dialect D', "answer as the real API does today (current, default) or in spec.md's shape (seed)"],
    ['--state-file FILE', 'keep resources and key pairs across restarts'],
    ['--no-control', 'leave out the control API (/__sim): every path under it is a 404'],
  ],
  examples: [
    'tideline local-cloud',
    'tideline local-cloud --port 8080 --time-scale 0.1 --state-file .tideline/cloud.json',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

export const localCloudCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(LOCAL_CLOUD_SPEC, argv, ctx);
  let options: LocalCloudOptions;
  try {
    options = localCloudOptionsFromFlags(parsed.values);
  } catch (error) {
    if (!hasLocalCloudCode(error, 'LOCAL_CLOUD_USAGE')) throw error;
    throw new CliError('CLI_USAGE', (error as Error).message, 'see `tideline local-cloud --help`');
  }
  const { isLocalCloudStartError, serveLocalCloud } =
    require('../../local-cloud/serve') as typeof import('../../local-cloud/serve');

  // Listen before starting: a supervisor may send SIGTERM as soon as it reads the first line.
  const stop = waitForStopSignal(ctx);
  try {
    await serveLocalCloud(options, {
      stdout: ctx.stdout,
      stderr: ctx.stderr,
      name: 'tideline local-cloud',
      stopRequested: stop.received,
    });
    return EXIT.OK;
  } catch (error) {
    if (!isLocalCloudStartError(error)) throw error;
    if (error.badInput) throw new CliError('CLI_USAGE', `local cloud: ${error.message}`);
    throw new CliError('CLI_INTERNAL', `the local cloud could not start: ${error.message}`);
  } finally {
    stop.dispose();
  }
};
