/* eslint-disable @typescript-eslint/no-require-imports -- heavy modules load on use, so --help stays fast */
// `tideline dev`: a Temporal dev server (with its Web UI), the local cloud and a worker, in one
// command, bound to 127.0.0.1. Prints where everything is (`--json`: one JSON object as the first
// stdout line) and runs until Ctrl-C / SIGTERM, then stops everything, children included.
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { DIALECT_FLAG_HELP, dialectFlag, numberFlag, portFlag, stackFailure } from '../dev-stack-flags';
import { renderStackInfo, stackInfo } from '../../stack/stack-info';
import { waitForStopSignal } from '../stop-signal';
import { EXIT } from '../errors';
import { resolveSettings } from '../settings';
import { SHARED_DEFAULTS } from '../../worker/shared-settings';

// Loaded on use: they pull in Temporal's SDK, which `--help` must not wait for.
const loadDevStack = () => require('../../stack/dev-stack') as typeof import('../../stack/dev-stack');

export const DEV_SPEC = {
  name: 'dev',
  usage:
    '[--port N] [--ui-port N] [--cloud-port N] [--db FILE] [--time-scale X] [--dialect current|seed] [--no-codec-server]',
  description: [
    'Everything binds to 127.0.0.1. Without --port the usual ports 7233 (Temporal) and 8233 (Web UI) are used when free, otherwise free ones; the local cloud takes a free port.',
    "The local cloud's key pair is printed: it is a development credential of this local cloud only. The worker uses the local cloud's credentials and your encryption keys (TIDELINE_ENCRYPTION_KEYS, TIDELINE_KEY_FILE or ~/.tideline/keys.json), so `tideline run … --address <printed address>` from another terminal works against it.",
    "With --config FILE (or TIDELINE_CONFIG) the worker takes that worker configuration whole, as `tideline worker` does: policies and calendars, catalogue, approvals, notifications, drift, tuning, metrics, and the cloud's timeoutMs and rateLimit. Only the cloud's endpoint and credentials are the local cloud's; a file that sets cloud.baseUrl, cloud.projects, cloud.defaultProject, cloud.allowInsecureLoopback or temporal.address is refused, naming the key.",
    'The Web UI decrypts payloads through a codec server (POST /codec/decode) on a free 127.0.0.1 port with the same keys, for this namespace only. Every request needs its token (`Authorization: Bearer $TIDELINE_CODEC_TOKEN` when set, at least 16 characters; otherwise a random one that is not shown); the dev UI, which cannot send one, gets a secret endpoint of its own (/codec/t/<random>) that any local user can still read from the UI (GET /api/v1/settings). On a machine shared with other users, pass --no-codec-server.',
    'With --json the first stdout line is one JSON object: temporal {address, namespace, webUiUrl, dbFile}, cloud {url, controlUrl, controlToken, stateFile, projects [{id, name, access_key, secret_key}]}, worker {taskQueue, encryptionKey, keySource, keyFile}, codec {endpoint} (null with --no-codec-server; POST <endpoint>/decode with Authorization: Bearer $TIDELINE_CODEC_TOKEN).',
  ],
  options: {
    port: { type: 'string' },
    'ui-port': { type: 'string' },
    'cloud-port': { type: 'string' },
    db: { type: 'string' },
    'time-scale': { type: 'string' },
    dialect: { type: 'string' },
    'no-codec-server': { type: 'boolean' },
  },
  optionHelp: [
    ['--port N', 'Temporal frontend port (default 7233 if free; 0 = any free port)'],
    ['--ui-port N', 'Web UI port (default: Temporal port + 1000 if free)'],
    ['--cloud-port N', 'local cloud port (default: any free port)'],
    [
      '--db FILE',
      "keep workflows and schedules in this SQLite file, and the local cloud's state in FILE.cloud.json",
    ],
    ['--time-scale X', "the local cloud's pace (0.1 = ten times faster; default 1: a create takes ~3 s)"],
    [...DIALECT_FLAG_HELP],
    ['--no-codec-server', 'no codec server: the Web UI shows payloads encrypted'],
  ],
  examples: [
    'tideline dev',
    'tideline dev --db .tideline/dev.db          # keep runs, schedules and resources across restarts',
    'tideline dev --port 0 --json                # free ports; machine-readable first line',
    'tideline dev --config dev-worker.yaml       # the worker with these policies, catalogue, approvals…',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

export const devCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(DEV_SPEC, argv, ctx);
  const { values } = parsed;
  const log = (line: string): void => {
    ctx.stderr.write(`${line}\n`);
  };
  // The same task queue and namespace as `tideline run` with this environment (flags > env > config file).
  const settings = resolveSettings(ctx);
  // Signals count from the start: a Ctrl-C during start-up stops what has started.
  const stop = waitForStopSignal(ctx);
  try {
    log('tideline dev: starting the Temporal dev server, the local cloud and a worker…');
    const starting = loadDevStack()
      .startDevStack({
        env: ctx.env,
        namespace: settings.namespace ?? SHARED_DEFAULTS.namespace,
        taskQueue: settings.taskQueue,
        port: portFlag('port', values.port),
        uiPort: portFlag('ui-port', values['ui-port']),
        cloudPort: portFlag('cloud-port', values['cloud-port']),
        preferUsualPorts: true,
        dbFile: values.db,
        timeScale: numberFlag('time-scale', values['time-scale'], 0.001, 1000),
        dialect: dialectFlag(values.dialect),
        codecServer: values['no-codec-server'] !== true,
        configFile: settings.configFile,
        log,
      })
      .catch((error: unknown) => {
        throw stackFailure(error);
      });
    const first = await Promise.race([starting, stop.received]);
    if (typeof first === 'string') {
      log(`tideline dev: ${first} received while starting; stopping`);
      await (await starting.catch(() => undefined))?.close();
      return EXIT.OK;
    }
    const stack = first;
    const info = stackInfo(stack);
    ctx.stdout.write(ctx.globals.json ? `${JSON.stringify(info)}\n` : renderStackInfo(info));
    const ended = await Promise.race([
      stop.received,
      stack.workerStopped.then(
        () => 'worker-stopped',
        (error: unknown) => `worker-failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
    ]);
    log(`tideline dev: ${ended.startsWith('worker') ? ended : `${ended} received`}; stopping…`);
    await stack.close();
    log('tideline dev: stopped');
    return ended.startsWith('worker') ? EXIT.FAILED : EXIT.OK;
  } finally {
    stop.dispose();
  }
};
