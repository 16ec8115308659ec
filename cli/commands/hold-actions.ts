// `tideline retry|skip|rollback ID`: act on a run held at a failed step (`onFailure: hold`)
// through the interpreter's updates, whose validators refuse a wrong action (nothing held, a step
// that is not held, invalid inputs, a `with` field the step does not set, a skip output lacking a
// field a later step reads) before it is recorded. Exit 0 when the action was taken, 1 when it was refused or the run has ended.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every SDK module */
import { printable } from '../../cloud/printable';
import type { KeyObject } from 'node:crypto';
import type { JsonValue } from '../../dsl/expressions';
import { loadApprovalKey } from '../approval-signing';
import { signHoldAction } from '../../activities/approval-signatures';
import type { OperatorAction } from '../../contract/run-messages';
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { parseInputPairs, warnLiteralSecrets, type InputPair } from '../input-sources';
import { printCliError } from '../output/errors';
import { cliCommand } from '../output/run-report';
import { runStatusOf } from '../run-observer';
import { operatorName, sendRunUpdate } from '../run-update';
import { withTemporal, type TemporalSession } from '../temporal';
import { runIdArgument } from '../workflow-id';

type Verb = 'retry' | 'skip' | 'rollback';

const COMMON_HELP: [string, string][] = [
  ['--by NAME', 'who acts (default: your user name)'],
  ['--key FILE', 'the approval key that signs the action (default ~/.tideline/approval-keys/NAME.pem)'],
  ['-m, --reason TEXT', 'why, recorded with the action'],
];

export const RETRY_SPEC = {
  name: 'retry',
  usage: "ID [--step KEY] [-i key=value]… [--with '{…}'] [--by NAME] [--key FILE] [-m TEXT]",
  description: [
    'Runs the held step again (a create that had taken effect is adopted, not duplicated). -i changes',
    'input values first; they are checked like at start. --with gives values for fields the step’s',
    '`with` sets (a JSON object), used instead from this retry on. Exit 1 when nothing (or not that',
    'step) is held, or a field is one the step does not set.',
  ],
  options: {
    step: { type: 'string' },
    input: { type: 'string', short: 'i', multiple: true },
    with: { type: 'string' },
    by: { type: 'string' },
    key: { type: 'string' },
    reason: { type: 'string', short: 'm' },
  },
  optionHelp: [
    ['--step KEY', 'which held step (needed only when several are held)'],
    [
      '-i, --input key=value',
      'an input value to change before the retry (repeatable; key=@FILE reads a file)',
    ],
    ['--with JSON', 'values of the step\'s `with` fields to use instead, e.g. \'{"cpu_millis":"2000"}\''],
    ...COMMON_HELP,
  ],
  examples: [
    'tideline retry provision-production-service-3f9a1c --step pooler -m "pooler quota raised"',
    `tideline retry provision-production-service-3f9a1c --step create --with '{"region_code":"eu-west-1"}'`,
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

export const SKIP_SPEC = {
  name: 'skip',
  usage: 'ID --step KEY [--output JSON] [--by NAME] [--key FILE] [-m TEXT]',
  description: [
    'The held step counts as done with --output (JSON, default null); it must have every field later',
    'steps read. Nothing is undone for a skipped step. Exit 1 when the step is not held.',
  ],
  options: {
    step: { type: 'string' },
    output: { type: 'string' },
    by: { type: 'string' },
    key: { type: 'string' },
    reason: { type: 'string', short: 'm' },
  },
  optionHelp: [
    ['--step KEY', 'the held step'],
    ['--output JSON', 'the output the step is taken to have produced (default null)'],
    ...COMMON_HELP,
  ],
  examples: [
    'tideline skip provision-production-service-3f9a1c --step pooler --output \'{"message":"done by hand"}\'',
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

export const ROLLBACK_SPEC = {
  name: 'rollback',
  usage: 'ID [--by NAME] [--key FILE] [-m TEXT]',
  description: [
    'Compensates the completed steps, newest first, and fails the run. Exit 1 when nothing is held.',
  ],
  options: { by: { type: 'string' }, key: { type: 'string' }, reason: { type: 'string', short: 'm' } },
  optionHelp: COMMON_HELP,
  examples: ['tideline rollback provision-production-service-3f9a1c -m "wrong region"'],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

/** A JSON option value nested no deeper than a run input may be (deeper ones overflow stacks later). */
function shallowJson(option: string, value: unknown): void {
  const { MAX_INPUT_DEPTH, nestingDepth } = require('../runbook-input') as typeof import('../runbook-input');
  if (nestingDepth(value) > MAX_INPUT_DEPTH) {
    throw new CliError(
      'CLI_USAGE',
      `${option} is nested deeper than ${MAX_INPUT_DEPTH} levels (the limit)`,
      'flatten the value; lists and maps of a few levels are all a step needs',
    );
  }
}

function parseOutput(text: string | undefined): JsonValue {
  if (text === undefined) return null;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    throw new CliError('CLI_USAGE', '--output must be JSON', `e.g. --output '{"service_id":"abc"}'`);
  }
  shallowJson('--output', value);
  return value;
}

function parseWith(text: string): Record<string, JsonValue> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError('CLI_USAGE', '--with must be a JSON object', `e.g. --with '{"cpu_millis":"2000"}'`);
  shallowJson('--with', value);
  return value as Record<string, JsonValue>;
}

/** Warns about secret inputs given literally with -i, reading the run's definition from its first event. */
async function warnAboutSecrets(
  ctx: CliContext,
  session: TemporalSession,
  workflowId: string,
  pairs: readonly InputPair[],
): Promise<void> {
  const { runDefinition } = require('../history-timeline') as typeof import('../history-timeline');
  try {
    const page = await session.client.workflowService.getWorkflowExecutionHistory({
      namespace: session.target.namespace,
      execution: { workflowId },
      maximumPageSize: 1,
    });
    const definition = await runDefinition(
      page.history?.events ?? [],
      session.client.options.loadedDataConverter,
    );
    if (definition) warnLiteralSecrets(definition, pairs, ctx.stderr, true);
  } catch {
    // A warning only: the update itself reports what is wrong with the run or its data.
  }
}

async function act(
  ctx: CliContext,
  session: TemporalSession,
  workflowId: string,
  verb: Verb,
  request: Record<string, unknown>,
  pairs: readonly InputPair[] = [],
  key?: KeyObject,
): Promise<number> {
  const messages = require('../../contract/run-messages') as typeof import('../../contract/run-messages');
  const update = {
    retry: messages.retryUpdate,
    skip: messages.skipUpdate,
    rollback: messages.rollbackUpdate,
  }[verb];
  const handle = session.client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  if (description.status.name !== 'RUNNING') {
    printCliError(ctx, {
      code: 'RUN_NOT_HELD',
      message: `run ${workflowId} has already ended (${runStatusOf(description.status.name)}); there is nothing to ${verb === 'rollback' ? 'roll back' : verb}`,
      hint: `see how it ended: ${cliCommand(ctx, ['status', workflowId, '--once'])}`,
      details: [],
    });
    return EXIT.FAILED;
  }
  if (pairs.some((pair) => pair.literal)) await warnAboutSecrets(ctx, session, workflowId, pairs);
  if (key !== undefined && typeof request.by === 'string') {
    const { holdActionChanges } =
      require('../../contract/approval-messages') as typeof import('../../contract/approval-messages');
    request.signature = signHoldAction(key, {
      workflowId,
      runId: description.runId,
      action: verb,
      ...(typeof request.step === 'string' && { step: request.step }),
      by: request.by,
      ...(typeof request.reason === 'string' && { reason: request.reason }),
      changes: holdActionChanges(verb, request),
    });
  }
  const sent = await sendRunUpdate(ctx, session, {
    workflowId,
    verb,
    noun: 'action',
    refusedCode: 'RUN_NOT_HELD',
    taskQueue: description.taskQueue,
    send: async () =>
      (await handle.executeUpdate(update as typeof messages.retryUpdate, {
        args: [request],
      })) as OperatorAction,
  });
  if ('exit' in sent) return sent.exit;
  const action = sent.answer;
  if (action.refused !== undefined) {
    printCliError(ctx, {
      code: action.refused.code,
      message: `run ${workflowId} refused this ${verb}: ${action.refused.reason}`,
      hint: `every action: ${cliCommand(ctx, ['audit', workflowId])}`,
      details: [],
    });
    return EXIT.FAILED;
  }
  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify({ workflowId, ...action })}\n`);
    return EXIT.OK;
  }
  const after = verb === 'rollback' ? 'the run compensates and fails' : 'the run goes on';
  ctx.stdout.write(
    `${verb} ${printable(`${action.stepKey} of run ${workflowId}${action.by ? ` (by ${action.by})` : ''}`)}; ${after}\n` +
      `follow it: ${cliCommand(ctx, ['status', workflowId])}\n`,
  );
  return EXIT.OK;
}

function holdCommand(verb: Verb, spec: typeof RETRY_SPEC | typeof SKIP_SPEC | typeof ROLLBACK_SPEC): Command {
  return async (argv, ctx) => {
    const parsed = parseCommand(spec, argv, ctx);
    const workflowId = runIdArgument(parsed.positionals);
    const values = parsed.values as Record<string, string | string[] | undefined>;
    const request: Record<string, unknown> = {};
    const by = (values.by as string | undefined) ?? operatorName(ctx.env);
    if (by !== undefined) request.by = by;
    if (values.reason !== undefined) request.reason = values.reason;
    if (values.step !== undefined) request.step = values.step;
    let pairs: InputPair[] = [];
    if (verb === 'retry') {
      pairs = parseInputPairs((values.input as string[] | undefined) ?? [], ctx);
      const inputs = Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]));
      if (Object.keys(inputs).length > 0) request.inputs = inputs;
      if (values.with !== undefined) request.with = parseWith(values.with as string);
    }
    if (verb === 'skip') {
      if (values.step === undefined)
        throw new CliError('CLI_USAGE', 'skip needs --step KEY', 'name the held step');
      request.output = parseOutput(values.output as string | undefined);
    }
    const key = by === undefined ? undefined : loadApprovalKey(ctx, by, values.key as string | undefined);
    return withTemporal(ctx, (session) => act(ctx, session, workflowId, verb, request, pairs, key));
  };
}

export const retryCommand: Command = holdCommand('retry', RETRY_SPEC);
export const skipCommand: Command = holdCommand('skip', SKIP_SPEC);
export const rollbackCommand: Command = holdCommand('rollback', ROLLBACK_SPEC);
