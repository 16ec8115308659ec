#!/usr/bin/env node
// CLI of the local cloud: `npm run simulator -- [--host 127.0.0.1] [--port 0] [--config FILE]
// [--time-scale X] [--seed N] [--state-file FILE]`. The FIRST stdout line is one JSON object with
// the URL and the projects' key pairs; nothing secret is printed after it.
import { parseArgs } from 'node:util';
import { SimulatorConfigError } from './config';
import { StateFileError } from './persistence';
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from './server';

const USAGE =
  'usage: simulator [--host 127.0.0.1] [--port 0] [--config FILE] [--time-scale X] [--seed N] [--state-file FILE]';

class UsageError extends Error {}

function number(flag: string, text: string | undefined, check: (n: number) => boolean): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !check(value)) {
    throw new UsageError(`--${flag}: invalid value ${JSON.stringify(text)}`);
  }
  return value;
}

function parseOptions(argv: string[]): LocalCloudOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        config: { type: 'string' },
        'time-scale': { type: 'string' },
        seed: { type: 'string' },
        'state-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const options: LocalCloudOptions = { host: values.host ?? '127.0.0.1' };
  const port = number('port', values.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535);
  const timeScale = number('time-scale', values['time-scale'], (n) => n > 0 && n <= 1000);
  const seed = number('seed', values.seed, (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32);
  if (port !== undefined) options.port = port;
  if (timeScale !== undefined) options.timeScale = timeScale;
  if (seed !== undefined) options.seed = seed;
  if (values.config !== undefined) options.configFile = values.config;
  if (values['state-file'] !== undefined) options.stateFile = values['state-file'];
  return options;
}

function fail(message: string, exitCode: number): never {
  process.stderr.write(`simulator: ${message}\n`);
  process.exit(exitCode);
}

async function main(): Promise<void> {
  let options: LocalCloudOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    fail(`${(error as Error).message} (see --help)`, 2);
  }

  // Signal handlers go in first: a supervisor may send SIGTERM the moment it reads the first line.
  let stopRequested: string | undefined;
  let stop = (signal: string) => {
    stopRequested ??= signal;
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  let cloud: LocalCloud;
  try {
    cloud = await startLocalCloud(options);
  } catch (error) {
    if (error instanceof SimulatorConfigError || error instanceof StateFileError) fail(error.message, 2);
    const code = (error as NodeJS.ErrnoException).code;
    fail(`could not start: ${code ? `${code} ` : ''}${(error as Error).message}`, 1);
  }

  let stopping = false;
  stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`simulator: ${signal} received, stopping\n`);
    cloud.close().then(
      () => process.exit(0),
      (error: unknown) => fail(`error while stopping: ${(error as Error).message}`, 1),
    );
  };

  const projects = cloud.projects.map(({ id, name, access_key, secret_key }) => ({
    id,
    name,
    access_key,
    secret_key,
  }));
  process.stdout.write(`${JSON.stringify({ url: cloud.url, projects })}\n`);
  process.stderr.write(
    `simulator: local cloud listening on ${cloud.url} (control API ${cloud.controlUrl}, seed ${cloud.seed})\n`,
  );
  if (stopRequested !== undefined) stop(stopRequested);
}

void main();
