// `tideline state import --project P [selector] [--out FILE]`: writes a state file (kind: State)
// describing the services that exist now under a selector — observe-only rules that hold for them
// today (state/state-import.ts), which a team then edits. Read-only towards the cloud: one
// service.list through the Cloud API settings and per-project budget the worker runs with.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { displayName } from '../runbook-input';
import { subcommandDispatcher } from '../subcommands';

export const STATE_SPEC = {
  name: 'state',
  usage: 'import --project ID [--name GLOB] [--environment ENV] [--status S] [--region R] [--out FILE]',
  description: [
    'state import: writes a state file (kind: State) of what the selected services hold now: per',
    'service, one rule per fact — environment tag, region, HA replica count, pooler, VPC, size.',
    'Observe-only: `tideline drift` on the unchanged fleet is clean; edit it into the rules you mean.',
    'The selector flags are those of a foreach `targets` (repeatable; all given must match). The',
    'Cloud API comes from the worker configuration (--config / TIDELINE_CONFIG, or TIDELINE_CLOUD_*).',
  ],
  options: {
    project: { type: 'string' },
    name: { type: 'string', multiple: true },
    environment: { type: 'string', multiple: true },
    status: { type: 'string', multiple: true },
    region: { type: 'string', multiple: true },
    out: { type: 'string', short: 'o' },
    'state-name': { type: 'string' },
    force: { type: 'boolean' },
  },
  optionHelp: [
    ['--project ID', "the project (default: the configuration's default project)"],
    ['--name GLOB', 'only services whose name matches (* and ?; repeatable)'],
    ['--environment ENV', 'only services with this environment tag (PROD, DEV, …; repeatable)'],
    ['--status S, --region R', 'only services in this status or region (repeatable)'],
    ['-o, --out FILE', 'write the file there instead of to stdout (--force overwrites)'],
    ['--state-name NAME', 'the state\'s name (default "imported")'],
  ],
  examples: [
    'tideline state import --environment PROD --out prod.state.yaml',
    "tideline --config worker.yaml state import --project d1k5vk7hf2 --name 'orders-*'",
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

async function stateImport(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand(STATE_SPEC, argv, ctx);
  const { importState, stateFileText } =
    require('../../state/state-import') as typeof import('../../state/state-import');
  const { loadStateText } = require('../../state/state-file') as typeof import('../../state/state-file');
  const { planWorkerConfig } = require('../plan/target-lister') as typeof import('../plan/target-lister');
  const values = parsed.values;
  const out = values.out === undefined ? undefined : path.resolve(ctx.cwd, values.out);
  if (out !== undefined && existsSync(out) && values.force !== true)
    throw new CliError(
      'FILE_EXISTS',
      `${values.out} already exists; nothing was written`,
      'add --force to overwrite',
    );
  const worker = planWorkerConfig(ctx);
  const projectId = values.project ?? worker.defaultProjectId();
  const select = {
    ...(values.name !== undefined && { name: values.name }),
    ...(values.environment !== undefined && { environment: values.environment }),
    ...(values.status !== undefined && { status: values.status }),
    ...(values.region !== undefined && { region: values.region }),
  };
  const state = importState(await worker.lister(projectId), {
    projectId,
    select,
    name: values['state-name'] ?? 'imported',
  });
  if (state.rules.length === 0)
    throw new CliError(
      'CLI_USAGE',
      `no service of project ${projectId} matches the selector; nothing was written`,
      'widen --name, --environment, --status or --region',
    );
  const text = stateFileText(state);
  // What is written must read back as a valid state file.
  const check = loadStateText(text, out ?? path.join(ctx.cwd, 'imported.state.yaml'), displayName(ctx));
  if (!check.ok)
    throw new CliError(
      'CLI_INTERNAL',
      `the imported state does not validate: ${check.problems[0]?.message ?? 'unknown problem'}`,
    );
  if (out === undefined) ctx.stdout.write(text);
  else {
    writeFileSync(out, text);
    ctx.stderr.write(`wrote ${values.out} (${state.rules.length} rules)\n`);
  }
  return EXIT.OK;
}

export const stateCommand: Command = subcommandDispatcher(STATE_SPEC, { import: stateImport });
