// `tideline catalog [--json]`: the runbooks a worker with this configuration runs (its `catalog:`),
// each with its name, file and definition hash — the hash `sha256:` pins and `tideline audit`
// shows — or that it runs any definition (development setting).
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every worker module */
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import type { WorkerConfig } from '../../worker/config';
import { CliError, EXIT } from '../errors';
import { printable } from '../../cloud/printable';
import { settingsEnvironment } from '../settings';

export const CATALOG_SPEC = {
  name: 'catalog',
  usage: '[--config FILE] [--json]',
  description: [
    'Reads the worker configuration (--config / TIDELINE_CONFIG) as the worker does at start: every',
    'runbook of its catalog: section is validated and named by its definition hash. A runbook that',
    'does not validate, or whose pinned sha256 differs, is an error here as it stops the worker.',
    '--json prints { mode, runbooks: [{ name, file, sha256 }] }.',
  ],
  options: {},
  optionHelp: [],
  examples: ['TIDELINE_CONFIG=worker.yaml tideline catalog', 'tideline --config worker.yaml catalog --json'],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

/** The worker configuration's catalogue, read as the worker reads it; a bad file is CLI_USAGE. */
export function workerCatalogue(ctx: CliContext): WorkerConfig['catalog'] {
  const { loadWorkerConfig } = require('../../worker/config') as typeof import('../../worker/config');
  const { WorkerError } = require('../../worker/errors') as typeof import('../../worker/errors');
  try {
    return loadWorkerConfig({
      env: settingsEnvironment(ctx),
      notice: (line) => ctx.stderr.write(`${line}\n`),
    }).catalog;
  } catch (error) {
    if (error instanceof WorkerError)
      throw new CliError(
        'CLI_USAGE',
        error.message,
        'fix the worker configuration named by --config / TIDELINE_CONFIG',
      );
    throw error;
  }
}

export const catalogCommand: Command = async (argv, ctx) => {
  parseCommand(CATALOG_SPEC, argv, ctx);
  const config = { catalog: workerCatalogue(ctx) };
  const mode = config.catalog?.mode ?? 'development';
  const runbooks = (config.catalog?.list ?? []).map(({ name, file, hash }) => ({ name, file, sha256: hash }));
  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify({ mode, runbooks })}\n`);
    return EXIT.OK;
  }
  ctx.stdout.write(
    mode === 'catalog'
      ? `this worker runs ${runbooks.length} runbook(s) and refuses any other definition (RUNBOOK_NOT_ALLOWED):\n`
      : `development setting: this worker runs any definition a client sends${runbooks.length > 0 ? `; its catalogue lists ${runbooks.length}` : ' (no catalog: section)'}\n`,
  );
  for (const entry of runbooks)
    ctx.stdout.write(`  ${printable(entry.name)}  ${printable(entry.file)}  sha256:${entry.sha256}\n`);
  return EXIT.OK;
};
