// `tideline drift-watch start|describe|stop STATE`: the watcher that checks one of the worker's
// state files on an interval and notifies the worker's drift targets when drift appears and when
// it clears (workflows/drift-watch-workflow.ts). The client names the state only: the worker
// checks the state file its configuration names (`drift.states`), never one sent to it.
import { formatDuration, isDuration, parseDuration } from '../../dsl/durations';
import {
  driftWatchStatusQuery,
  driftWatchWorkflowId,
  type DriftWatchInput,
  type DriftWatchStatus,
} from '../../contract/drift-watch-messages';
import { DRIFT_WATCH_WORKFLOW_TYPE, isAlreadyStarted } from '../../contract/workflow-types';
import { repairOutcomeText } from '../../activities/drift-watch';
import { printable } from '../../cloud/printable';
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { subcommandDispatcher } from '../subcommands';
import { withTemporal } from '../temporal';

/** Shorter intervals would check the cloud more often than any fleet changes. */
const MIN_EVERY_MS = 1_000;

export const DRIFT_WATCH_SPEC = {
  name: 'drift-watch',
  usage: 'start|describe|stop STATE …',
  description: [
    [
      'subcommands:',
      '  start STATE --every DURATION   check the state on an interval and notify changes',
      '  describe STATE                 its checks, open findings and notifications',
      '  stop STATE                     stop watching (nothing is notified about it)',
    ].join('\n'),
    "STATE is the `name` of a state file the worker's configuration names under drift.states; the",
    'worker reads and checks those files at start. A watcher tells the targets under drift.notify',
    'once when drift appears (a rule broken by a service that did not break it at the previous check)',
    'and once when it clears; drift found by the first check counts as new. One watcher per state.',
  ],
  options: {},
  optionHelp: [],
  examples: [
    'tideline drift-watch start prod-fleet --every 4h',
    'tideline drift-watch describe prod-fleet --json',
    'tideline drift-watch stop prod-fleet',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

/** `drift-watch SUB STATE`'s spec. */
function stateSpec<O extends CommandSpec['options']>(
  sub: string,
  summary: string,
  options: O,
  optionHelp: [string, string][],
  example: string,
): CommandSpec<O> {
  return {
    name: `drift-watch ${sub}`,
    usage: `STATE${optionHelp.length > 0 ? ' [options]' : ''}`,
    summary,
    options,
    optionHelp,
    examples: [`tideline drift-watch ${sub} ${example}`],
    positionals: { min: 1, max: 1, names: 'the STATE name' },
  };
}

const START_SPEC = stateSpec(
  'start',
  'watch a state of the worker for drift',
  { every: { type: 'string' } },
  [['--every DURATION', 'how often to check: 30m, 4h, 1d … (required)']],
  'prod-fleet --every 4h',
);
const DESCRIBE_SPEC = stateSpec(
  'describe',
  "a watcher's checks, open findings and notifications",
  {},
  [],
  'prod-fleet',
);
const STOP_SPEC = stateSpec('stop', 'stop watching a state', {}, [], 'prod-fleet');

function everyOption(text: string | undefined): number {
  if (text === undefined)
    throw new CliError('CLI_USAGE', 'missing --every', 'how often to check, e.g. --every 4h');
  const ms = isDuration(text) ? parseDuration(text) : Number.NaN;
  if (!(ms >= MIN_EVERY_MS))
    throw new CliError(
      'CLI_USAGE',
      `--every ${text}: not a duration of at least 1s`,
      'e.g. --every 30m or 4h',
    );
  return ms;
}

async function start(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand(START_SPEC, argv, ctx);
  const state = parsed.positionals[0] ?? '';
  const input: DriftWatchInput = { state, everyMs: everyOption(parsed.values.every) };
  const workflowId = driftWatchWorkflowId(state);
  return withTemporal(ctx, async (session) => {
    try {
      await session.client.workflow.start(DRIFT_WATCH_WORKFLOW_TYPE, {
        taskQueue: session.target.taskQueue,
        workflowId,
        args: [input],
      });
    } catch (error) {
      if (isAlreadyStarted(error))
        throw new CliError(
          'CLI_USAGE',
          `state ${state} is watched already (${workflowId})`,
          `\`tideline drift-watch stop ${state}\` first to change its interval`,
        );
      throw error;
    }
    if (ctx.globals.json) ctx.stdout.write(`${JSON.stringify({ ok: true, workflowId, ...input })}\n`);
    else
      ctx.stdout.write(
        `watching ${state} every ${formatDuration(input.everyMs)} (${workflowId}); \`tideline drift-watch describe ${state}\` shows its checks\n`,
      );
    return EXIT.OK;
  });
}

function renderStatus(status: DriftWatchStatus, running: string): string {
  const lines = [
    `${status.state}: ${running}, every ${formatDuration(status.everyMs)}, ${status.checks} check(s)${status.lastCheckAt !== undefined ? `, last at ${status.lastCheckAt}` : ''}`,
  ];
  if (status.lastError !== undefined) lines.push(`  last check failed: ${status.lastError}`);
  lines.push(`  ${status.findings.length} open finding(s)`);
  for (const finding of status.findings)
    lines.push(
      `    ${finding.service.name} (${finding.service.id}) breaks ${finding.rule} [${finding.severity}]`,
    );
  // A watcher started by an earlier release answers without repairs.
  const repairs = status.repairs ?? [];
  if (repairs.length > 0) lines.push(`  ${repairs.length} repair run(s)`);
  for (const repair of repairs)
    lines.push(
      `    ${repair.workflowId}: ${printable(repair.runbook)} for ${printable(repair.service.name)} (${repair.service.id}), ${repair.rules.join(', ')}: ${printable(repairOutcomeText(repair.outcome))}`,
    );
  lines.push(`  ${status.notified} notification(s) delivered, ${status.failed.length} failed`);
  for (const failed of status.failed) lines.push(`    ${failed.event} to ${failed.target}: ${failed.error}`);
  return `${lines.join('\n')}\n`;
}

async function describe(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand(DESCRIBE_SPEC, argv, ctx);
  const state = parsed.positionals[0] ?? '';
  return withTemporal(ctx, async (session) => {
    const handle = session.client.workflow.getHandle(driftWatchWorkflowId(state));
    const description = await handle.describe();
    const running = description.status.name.toLowerCase();
    const status = await handle.query(driftWatchStatusQuery);
    if (ctx.globals.json) ctx.stdout.write(`${JSON.stringify({ ...status, status: running })}\n`);
    else ctx.stdout.write(renderStatus(status, running));
    return EXIT.OK;
  });
}

async function stop(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand(STOP_SPEC, argv, ctx);
  const state = parsed.positionals[0] ?? '';
  return withTemporal(ctx, async (session) => {
    await session.client.workflow
      .getHandle(driftWatchWorkflowId(state))
      .terminate('stopped with tideline drift-watch stop');
    ctx.stdout.write(
      ctx.globals.json ? `${JSON.stringify({ ok: true, state })}\n` : `stopped watching ${state}\n`,
    );
    return EXIT.OK;
  });
}

export const driftWatchCommand: Command = subcommandDispatcher(DRIFT_WATCH_SPEC, { start, describe, stop });
