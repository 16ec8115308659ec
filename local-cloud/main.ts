#!/usr/bin/env node
// CLI of the local cloud: `npm run local-cloud -- [--host 127.0.0.1] [--port 0] [--config FILE]
// [--time-scale X] [--seed N] [--dialect seed|current] [--state-file FILE] [--no-control]`. The FIRST stdout line is one
// JSON object with the URL, the projects' key pairs and the control API's URL and token; nothing
// secret is printed after it. `tideline local-cloud` runs the same flags and serve loop
// (cli-options.ts, serve.ts).
import { parseArgs } from 'node:util';
import {
  localCloudOptionsFromFlags,
  LOCAL_CLOUD_FLAGS,
  LOCAL_CLOUD_USAGE,
  LocalCloudUsageError,
} from './cli-options';
import type { LocalCloudOptions } from './server';
import { isLocalCloudStartError, serveLocalCloud } from './serve';

function parseOptions(argv: string[]): LocalCloudOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { ...LOCAL_CLOUD_FLAGS, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    throw new LocalCloudUsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  if (values.help) {
    process.stdout.write(`usage: local-cloud ${LOCAL_CLOUD_USAGE}\n`);
    process.exit(0);
  }
  return localCloudOptionsFromFlags(values);
}

function fail(message: string, exitCode: number): never {
  process.stderr.write(`local-cloud: ${message}\n`);
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
  // They stay: a second signal while stopping changes nothing.
  const stopRequested = new Promise<string>((resolve) => {
    process.on('SIGINT', () => resolve('SIGINT'));
    process.on('SIGTERM', () => resolve('SIGTERM'));
  });

  try {
    await serveLocalCloud(options, {
      stdout: process.stdout,
      stderr: process.stderr,
      name: 'local-cloud',
      stopRequested,
    });
  } catch (error) {
    if (isLocalCloudStartError(error)) {
      if (error.badInput) fail(error.message, 2);
      fail(`could not start: ${error.message}`, 1);
    }
    fail(`error while stopping: ${(error as Error).message}`, 1);
  }
  process.exit(0);
}

void main();
