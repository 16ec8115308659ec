// `tideline rerun ID`: starts a new run of an ended run's pinned definition with its inputs (the
// values it was started with, -i / --inputs / TIDELINE_INPUT_* changing some of them), bound
// and checked like `run`. The definition comes from the ended run's first history event, so the
// new run does exactly what the old one was pinned to, whatever the file says today.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every SDK module */
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { CliError, EXIT } from '../errors';
import { gatherInputs } from '../input-sources';
import { printCliError } from '../output/errors';
import { cliCommand } from '../output/run-report';
import { runStatusOf } from '../run-observer';
import { bindRunInputs } from '../runbook-input';
import { startAndFollow, starterOf } from '../start-run';
import { withTemporal } from '../temporal';
import { runIdArgument, workflowIdProblem } from '../workflow-id';
import { newRunId } from './run';

export const RERUN_SPEC = {
  name: 'rerun',
  usage:
    'ID [-i key=value]… [--inputs FILE|-] [--id NEW] [--on-failure rollback|hold] [--detach] [--show-secrets]',
  description: [
    'Starts the definition run ID was pinned to, with the inputs it was started with (-i and',
    '--inputs change some), as a new run, and follows it like `run`. Only for runs that ended',
    '(exit 1 while ID still runs). The new run keeps the old one’s --on-failure unless given.',
  ],
  options: {
    input: { type: 'string', short: 'i', multiple: true },
    inputs: { type: 'string' },
    id: { type: 'string' },
    'on-failure': { type: 'string' },
    detach: { type: 'boolean', short: 'd' },
    'show-secrets': { type: 'boolean' },
    by: { type: 'string' },
    key: { type: 'string' },
  },
  optionHelp: [
    [
      '--by NAME, --key FILE',
      'who starts the new run, signed with their approval key (default: your user name)',
    ],
    ['-i, --input key=value', 'change an input value (repeatable; key=@FILE reads a file)'],
    ['--inputs FILE', 'a YAML or JSON file of input values to change, - for stdin'],
    ['--id NEW', 'the new run id (default: <runbook name>-<6 hex digits>)'],
    ['--on-failure rollback|hold', 'what a failed step does in the new run'],
    ['-d, --detach', 'start the run and return at once'],
    ['--show-secrets', 'print secret outputs instead of ••••••'],
  ],
  examples: [
    'tideline rerun provision-production-service-3f9a1c',
    'tideline rerun provision-production-service-3f9a1c -i name=orders-2 --on-failure hold',
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

export const rerunCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(RERUN_SPEC, argv, ctx);
  const oldId = runIdArgument(parsed.positionals);
  const { values } = parsed;
  const onFailure = values['on-failure'];
  if (onFailure !== undefined && onFailure !== 'rollback' && onFailure !== 'hold') {
    throw new CliError('CLI_USAGE', `--on-failure must be rollback or hold, not "${onFailure}"`);
  }
  if (values.id !== undefined) {
    const problem = workflowIdProblem(values.id);
    if (problem !== undefined) throw new CliError('CLI_USAGE', `--id ${problem}`);
  }
  const previous = await withTemporal(ctx, async (session) => {
    const handle = session.client.workflow.getHandle(oldId);
    const description = await handle.describe();
    if (description.status.name === 'RUNNING') return { running: true as const };
    const { decodeArrayFromPayloads } =
      require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
    const history = await handle.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const [input] = await decodeArrayFromPayloads(
      session.client.options.loadedDataConverter,
      started?.input?.payloads,
    );
    return {
      running: false as const,
      status: runStatusOf(description.status.name),
      input: input as RunbookWorkflowInput,
    };
  });
  if (previous.running) {
    printCliError(ctx, {
      code: 'RUN_STILL_RUNNING',
      message: `run ${oldId} is still running; rerun starts a new run of a run that ended`,
      hint: `follow it: ${cliCommand(ctx, ['status', oldId])}`,
      details: [],
    });
    return EXIT.FAILED;
  }
  const old = previous.input;
  if (old?.definition === undefined) {
    throw new CliError('RUN_NOT_FOUND', `run ${oldId} is not a runbook run`);
  }
  const changed = await gatherInputs(old.definition, { pairs: values.input, inputsFile: values.inputs }, ctx);
  const inputs = bindRunInputs(
    { definition: old.definition, file: `run ${oldId}` },
    { ...old.inputs, ...changed },
  );
  const policy = onFailure ?? old.onFailure;
  const workflowId = values.id ?? newRunId(old.definition.name);
  const input: RunbookWorkflowInput = {
    definition: old.definition,
    inputs,
    ...(policy !== undefined && { onFailure: policy }),
  };
  if (!ctx.globals.json)
    ctx.stdout.write(`rerunning ${old.definition.name} (run ${oldId}, ${previous.status})\n`);
  return startAndFollow(ctx, input, workflowId, {
    detach: values.detach === true,
    showSecrets: values['show-secrets'] === true,
    // The new run's starter is whoever reruns it, never the old run's.
    starter: starterOf(ctx, values.by, values.key),
  });
};
