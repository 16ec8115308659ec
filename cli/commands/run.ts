// `tideline run FILE`: validate, bind inputs, start the interpreter workflow, and follow it.
import { randomBytes } from 'node:crypto';
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { CliError } from '../errors';
import { gatherInputs } from '../input-sources';
import { bindRunInputs, loadRunbook, runbooksRootOption } from '../runbook-input';
import { startAndFollow, starterOf } from '../start-run';
import { workflowIdProblem } from '../workflow-id';

export const RUN_SPEC = {
  name: 'run',
  usage:
    'FILE [-i key=value]… [--inputs FILE|-] [--id ID] [--on-failure rollback|hold] [--detach] [--show-secrets]',
  description: [
    'Checks the runbook and its inputs first (problems are printed with file:line:column, exit 2),',
    'starts it on the task queue as run `<runbook name>-<random>` (or --id), and shows each step as',
    'it goes. Ctrl-C detaches without cancelling; `tideline status ID` reattaches. The run ends',
    'with its outputs (secret ones masked) and exit 0, or the failing step and reason and exit 1.',
    'A worker (`tideline worker`) must poll the task queue.',
    'Inputs, lowest precedence first: TIDELINE_INPUT_<NAME> variables, --inputs FILE (- reads stdin),',
    '-i name=value (-i name=@FILE reads the value from a file). Give secret inputs by file, stdin or',
    'variable: a value on the command line is visible to other users (`ps`), so it gets a warning.',
    "Child runbooks must be inside the runbook's folder, or inside --runbooks-root DIR.",
    'A run held at a failed step (onFailure: hold, or --on-failure hold) stops being followed with',
    'exit 5 and the commands that act on it (tideline retry | skip | rollback).',
  ],
  options: {
    input: { type: 'string', short: 'i', multiple: true },
    inputs: { type: 'string' },
    'runbooks-root': { type: 'string' },
    id: { type: 'string' },
    'on-failure': { type: 'string' },
    detach: { type: 'boolean', short: 'd' },
    'show-secrets': { type: 'boolean' },
    by: { type: 'string' },
    key: { type: 'string' },
  },
  optionHelp: [
    ['-i, --input key=value', 'an input value (repeatable); lists as a,b or JSON, maps as JSON'],
    [
      '-i, --input key=@FILE',
      'an input value read from a file (one trailing newline dropped; @@ for a literal @)',
    ],
    ['--inputs FILE', 'a YAML or JSON file of input values, - for stdin (-i wins over it)'],
    ['--runbooks-root DIR', "the folder child runbooks must be in (default: the runbook's folder)"],
    ['--id ID', 'the run id, at most 1000 bytes (default: <runbook name>-<6 hex digits>)'],
    ['--on-failure rollback|hold', "what a failed step does in this run (overrides the runbook's onFailure)"],
    ['-d, --detach', 'start the run and return at once'],
    ['--show-secrets', 'print secret outputs instead of ••••••'],
    [
      '--by NAME, --key FILE',
      'who starts the run (default: your user name), signed with NAME’s approval key when there; only for runbooks with approvers',
    ],
  ],
  examples: [
    'tideline run runbooks/provision-production-service.yaml -i project_id=d1k5vk7hf2 -i name=orders -i vpc_id=v1',
    'tideline run my-runbook.yaml --inputs inputs.yaml --id maintenance-2024-06-01 --detach',
    'tideline run runbooks/rotate-password.yaml -i project_id=p1 -i service_id=s1 -i new_password=@pw.txt',
    'tideline run my-runbook.yaml -i name=orders --json > result.json',
  ],
  positionals: { min: 1, max: 1, names: 'the runbook FILE' },
} satisfies CommandSpec;

/** A readable, unique run id: the runbook name and a short random suffix. */
export function newRunId(runbookName: string): string {
  return `${runbookName}-${randomBytes(3).toString('hex')}`;
}

export const runCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(RUN_SPEC, argv, ctx);
  const [file] = parsed.positionals as [string];
  const { values } = parsed;
  if (values.id !== undefined) {
    const problem = workflowIdProblem(values.id);
    if (problem !== undefined) {
      throw new CliError(
        'CLI_USAGE',
        `--id ${problem}`,
        'choose a shorter plain-text run id, or leave --id out',
      );
    }
  }
  const onFailure = values['on-failure'];
  if (onFailure !== undefined && onFailure !== 'rollback' && onFailure !== 'hold') {
    throw new CliError('CLI_USAGE', `--on-failure must be rollback or hold, not "${onFailure}"`);
  }
  const runbook = loadRunbook(file, ctx, runbooksRootOption(values['runbooks-root'], ctx));
  const given = await gatherInputs(
    runbook.definition,
    { pairs: values.input, inputsFile: values.inputs },
    ctx,
  );
  const inputs = bindRunInputs(runbook, given);
  const workflowId = values.id ?? newRunId(runbook.definition.name);

  const input: RunbookWorkflowInput = {
    definition: runbook.definition,
    inputs,
    ...(onFailure !== undefined && { onFailure }),
  };
  return startAndFollow(ctx, input, workflowId, {
    detach: values.detach === true,
    showSecrets: values['show-secrets'] === true,
    starter: starterOf(ctx, values.by, values.key),
  });
};
