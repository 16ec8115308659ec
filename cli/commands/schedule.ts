// `tideline schedule SUBCOMMAND`: runbooks on Temporal Schedules — create, list, describe, pause,
// unpause, trigger, delete. Each subcommand has its own `--help`.
import { closestName } from '../../dsl/suggest';
import { commandWordIndex, parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { withTemporal } from '../temporal';
import { checkScheduleName, explainScheduleError, namedSpec } from './schedule-common';
import { scheduleDelete, schedulePause, scheduleTrigger, scheduleUnpause } from './schedule-control';
import { scheduleCreate } from './schedule-create';
import {
  listItemJson,
  renderSchedule,
  renderScheduleList,
  scheduleJson,
  type ScheduleListItemJson,
} from './schedule-view';

export const SCHEDULE_SPEC = {
  name: 'schedule',
  usage: 'create|list|describe|pause|unpause|trigger|delete …',
  description: [
    [
      'subcommands:',
      '  create NAME --runbook FILE (--cron EXPR | --every DURATION) [options]',
      '                                 create (or --replace) a schedule',
      '  list                           every schedule, its timing, next run and state',
      '  describe NAME                  timing, policies, inputs (secrets masked), next and recent runs',
      '  pause NAME [--note TEXT]       start no runs until unpaused',
      '  unpause NAME [--note TEXT]     start runs again',
      '  trigger NAME                   start a run now',
      '  delete NAME                    remove the schedule (its runs go on)',
    ].join('\n'),
    'A schedule is pinned to the runbook as it was at `create`. `tideline schedule SUBCOMMAND --help` shows the options.',
  ],
  options: {},
  optionHelp: [],
  examples: [
    "tideline schedule create stop-dev-nightly -r runbooks/stop-dev-services.yaml --cron '0 20 * * 1-5' --timezone Europe/Berlin -i project_id=d1k5vk7hf2",
    'tideline schedule list',
    'tideline schedule describe stop-dev-nightly --json',
    'tideline schedule trigger stop-dev-nightly',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

const LIST_SPEC = {
  name: 'schedule list',
  usage: '',
  summary: 'list the schedules of the namespace',
  options: {},
  optionHelp: [],
  examples: ['tideline schedule list', 'tideline schedule list --json'],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

const DESCRIBE_SPEC = namedSpec(
  'describe',
  'show a schedule: timing, policies, inputs, next and recent runs',
  {},
  [],
  ['tideline schedule describe stop-dev-nightly', 'tideline schedule describe stop-dev-nightly --json'],
);

async function scheduleList(argv: string[], ctx: CliContext): Promise<number> {
  parseCommand(LIST_SPEC, argv, ctx);
  return withTemporal(ctx, async (session) => {
    const items: ScheduleListItemJson[] = [];
    for await (const summary of session.client.schedule.list()) items.push(listItemJson(summary));
    items.sort((a, b) => a.name.localeCompare(b.name));
    ctx.stdout.write(ctx.globals.json ? `${JSON.stringify(items)}\n` : renderScheduleList(items));
    return EXIT.OK;
  });
}

async function scheduleDescribe(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand(DESCRIBE_SPEC, argv, ctx);
  const name = checkScheduleName(parsed.positionals[0] as string);
  return withTemporal(ctx, async (session) => {
    let description;
    try {
      description = await session.client.schedule.getHandle(name).describe();
    } catch (error) {
      throw explainScheduleError(error, name, session.target) ?? error;
    }
    const json = await scheduleJson(session.client, name, description);
    ctx.stdout.write(ctx.globals.json ? `${JSON.stringify(json)}\n` : renderSchedule(json));
    return EXIT.OK;
  });
}

const SUBCOMMANDS: Record<string, Command> = {
  create: scheduleCreate,
  list: scheduleList,
  describe: scheduleDescribe,
  pause: schedulePause,
  unpause: scheduleUnpause,
  trigger: scheduleTrigger,
  delete: scheduleDelete,
};

export const scheduleCommand: Command = async (argv, ctx) => {
  // The subcommand: the first word that is neither a flag nor a global flag's value.
  const at = commandWordIndex(argv, { endAtDoubleDash: false });
  const sub = at === -1 ? undefined : argv[at];
  if (sub === undefined) {
    parseCommand(SCHEDULE_SPEC, argv, ctx);
    throw new CliError(
      'CLI_USAGE',
      'missing the subcommand',
      'one of create, list, describe, pause, unpause, trigger, delete (see `tideline schedule --help`)',
    );
  }
  const run = SUBCOMMANDS[sub];
  if (run === undefined) {
    const closest = closestName(sub, Object.keys(SUBCOMMANDS));
    throw new CliError(
      'CLI_USAGE',
      `unknown schedule subcommand "${sub}"`,
      closest
        ? `did you mean \`tideline schedule ${closest}\`?`
        : 'one of create, list, describe, pause, unpause, trigger, delete',
    );
  }
  return run([...argv.slice(0, at), ...argv.slice(at + 1)], ctx);
};
