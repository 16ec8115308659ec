// `tideline schedule create NAME --runbook FILE (--cron EXPR | --every DURATION) …`: checks the
// runbook and binds its inputs now (exit 2 on any problem), then creates a Temporal Schedule
// whose action starts the interpreter with the normalised definition: every run of the schedule
// uses the runbook as it was when the schedule was created.
import type { ScheduleOptions } from '@temporalio/client';
import { formatDuration as formatRunbookDuration, parseDuration } from '../../dsl/durations';
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext } from '../context';
import { CliError, EXIT } from '../errors';
import { cliCommand } from '../output/run-report';
import { RUNBOOK_WORKFLOW_TYPE } from '../run-observer';
import { gatherInputs } from '../input-sources';
import { bindRunInputs, loadRunbook, runbooksRootOption } from '../runbook-input';
import { runMetadata } from '../start-run';
import { loadApprovalKey } from '../approval-signing';
import { signScheduleStart } from '../../activities/approval-signatures';
import { operatorName } from '../run-update';
import { withTemporal } from '../temporal';
import {
  checkScheduleName,
  explainScheduleError,
  MEMO_KEY,
  OVERLAP_POLICIES,
  type OverlapName,
  type ScheduleMemo,
} from './schedule-common';

export const DEFAULT_CATCHUP = '5m';
/** Temporal does not accept a shorter catch-up window. */
const MIN_CATCHUP_MS = 10_000;

export const CREATE_SPEC = {
  name: 'schedule create',
  usage: 'NAME --runbook FILE (--cron EXPR | --every DURATION) [--timezone TZ] [-i key=value]… [options]',
  summary: 'run a runbook on a schedule (a Temporal Schedule)',
  description: [
    'The runbook and its inputs are checked now (problems: exit 2). The schedule is pinned to the runbook as it is now: its normalised definition is stored in the schedule, so later edits of the file do not change it — run `schedule create NAME … --replace` to pick them up.',
    'Runs are named NAME-<time>, go to the task queue (--task-queue), and show up in `tideline list`. Overlap: skip (default) drops a run while the previous one still runs; buffer queues one; cancel cancels the running one (it compensates) and starts anew.',
    `Missed runs (Temporal or the workers were down) are caught up only within the catch-up window, default ${DEFAULT_CATCHUP}: maintenance does not fire hours late after an outage.`,
  ],
  options: {
    runbook: { type: 'string', short: 'r' },
    cron: { type: 'string' },
    every: { type: 'string' },
    timezone: { type: 'string' },
    input: { type: 'string', short: 'i', multiple: true },
    inputs: { type: 'string' },
    'runbooks-root': { type: 'string' },
    overlap: { type: 'string' },
    catchup: { type: 'string' },
    'pause-on-failure': { type: 'boolean' },
    'on-failure': { type: 'string' },
    paused: { type: 'boolean' },
    note: { type: 'string' },
    replace: { type: 'boolean' },
    by: { type: 'string' },
    key: { type: 'string' },
  },
  optionHelp: [
    ['-r, --runbook FILE', 'the runbook to run (required)'],
    [
      '--by NAME, --key FILE',
      "who the schedule's runs are started by, signed with their approval key (default: your user name)",
    ],
    ['--cron EXPR', 'when, as a cron expression: "minute hour day-of-month month day-of-week"'],
    ['--every DURATION', 'or at a fixed interval: 30m, 1h, 1d …'],
    ['--timezone TZ', 'time zone of --cron, e.g. Europe/Berlin (default UTC)'],
    ['-i, --input key=value', 'an input value (repeatable); key=@FILE reads it from a file'],
    [
      '--inputs FILE',
      'a YAML or JSON file of input values, - for stdin (-i wins over it; TIDELINE_INPUT_<NAME> loses)',
    ],
    ['--runbooks-root DIR', "the folder child runbooks must be in (default: the runbook's folder)"],
    ['--overlap skip|buffer|cancel', 'when a run is due while the last one still runs (default skip)'],
    ['--catchup WINDOW', `how late a missed run may still start (default ${DEFAULT_CATCHUP}, at least 10s)`],
    ['--pause-on-failure', 'pause the schedule when a run fails (a held run fails once rolled back)'],
    [
      '--on-failure rollback|hold',
      "what a failed step does in its runs (overrides the runbook's onFailure); a held run keeps running",
    ],
    ['--paused', 'create it paused (`schedule unpause` starts it)'],
    ['--note TEXT', 'a note shown by describe (e.g. who and why)'],
    ['--replace', 'replace an existing schedule of that name (created anew; runs it started go on)'],
  ],
  examples: [
    "tideline schedule create stop-dev-nightly -r runbooks/stop-dev-services.yaml --cron '0 20 * * 1-5' --timezone Europe/Berlin -i project_id=d1k5vk7hf2",
    'tideline schedule create rotate-weekly -r runbooks/rotate-password.yaml --every 7d --inputs rotate-inputs.yaml --pause-on-failure',
  ],
  positionals: { min: 1, max: 1, names: 'the schedule NAME' },
} satisfies CommandSpec;

function durationFlag(flag: string, text: string, minMs: number): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (error) {
    throw new CliError('CLI_USAGE', `--${flag}: ${(error as Error).message}`);
  }
  if (ms < minMs) {
    throw new CliError(
      'CLI_USAGE',
      `--${flag} must be at least ${formatRunbookDuration(minMs)}`,
      `got ${text}`,
    );
  }
  return ms;
}

function checkTimezone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new CliError(
      'CLI_USAGE',
      `--timezone: unknown time zone "${zone}"`,
      'use an IANA name such as UTC, Europe/Berlin or America/New_York',
    );
  }
  return zone;
}

function checkCron(expression: string): string {
  const fields = expression.trim().split(/\s+/);
  if (expression.trim().startsWith('@') ? fields.length !== 1 : fields.length < 5 || fields.length > 7) {
    throw new CliError(
      'CLI_USAGE',
      `--cron: "${expression}" is not a cron expression`,
      'five fields: minute hour day-of-month month day-of-week, e.g. "0 20 * * 1-5" (weekdays at 20:00); or @daily, @hourly …',
    );
  }
  return expression.trim();
}

function overlapFlag(text: string | undefined): OverlapName {
  if (text === undefined) return 'skip';
  if (text in OVERLAP_POLICIES) return text as OverlapName;
  throw new CliError(
    'CLI_USAGE',
    '--overlap must be one of skip, buffer, cancel',
    `got ${JSON.stringify(text)}`,
  );
}

export async function scheduleCreate(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand(CREATE_SPEC, argv, ctx);
  const { values } = parsed;
  const name = checkScheduleName(parsed.positionals[0] as string);
  if (values.runbook === undefined) {
    throw new CliError(
      'CLI_USAGE',
      'missing --runbook FILE',
      'the runbook the schedule runs, e.g. --runbook runbooks/stop-dev-services.yaml',
    );
  }
  if ((values.cron === undefined) === (values.every === undefined)) {
    throw new CliError(
      'CLI_USAGE',
      'give exactly one of --cron EXPR or --every DURATION',
      "e.g. --cron '0 20 * * 1-5' or --every 1h",
    );
  }
  const cron = values.cron !== undefined ? checkCron(values.cron) : undefined;
  const everyMs = values.every !== undefined ? durationFlag('every', values.every, 1_000) : undefined;
  const timezone = values.timezone !== undefined ? checkTimezone(values.timezone) : undefined;
  if (timezone !== undefined && cron === undefined) {
    throw new CliError(
      'CLI_USAGE',
      '--timezone applies to --cron only',
      'an --every interval does not depend on the time zone',
    );
  }
  const catchupMs = durationFlag('catchup', values.catchup ?? DEFAULT_CATCHUP, MIN_CATCHUP_MS);
  const overlap = overlapFlag(values.overlap);

  const runbook = loadRunbook(values.runbook, ctx, runbooksRootOption(values['runbooks-root'], ctx));
  const given = await gatherInputs(
    runbook.definition,
    { pairs: values.input, inputsFile: values.inputs },
    ctx,
  );
  const inputs = bindRunInputs(runbook, given);
  const definition = runbook.definition;
  const onFailure = values['on-failure'];
  if (onFailure !== undefined && onFailure !== 'rollback' && onFailure !== 'hold') {
    throw new CliError('CLI_USAGE', `--on-failure must be rollback or hold, not "${onFailure}"`);
  }
  const memo: ScheduleMemo = {
    runbook: definition.name,
    file: values.runbook,
    secretInputs: Object.entries(definition.inputs)
      .filter(([, spec]) => spec.secret === true)
      .map(([input]) => input),
    ...(cron !== undefined ? { cron } : {}),
    ...(values.every !== undefined ? { every: values.every } : {}),
    ...(timezone !== undefined ? { timezone } : {}),
  };

  return withTemporal(ctx, async (session) => {
    const by = values.by ?? operatorName(ctx.env);
    const key = by === undefined ? undefined : loadApprovalKey(ctx, by, values.key);
    // A signed schedule is created paused with its creator only claimed, then signed for the
    // schedule as Temporal created it (its creation time: a schedule made later under this id is
    // another one) and given its asked state.
    const signsLater = by !== undefined && key !== undefined;
    const input: RunbookWorkflowInput = {
      definition,
      inputs,
      ...(onFailure !== undefined && { onFailure }),
      ...(by !== undefined && { startedBy: { by } }),
    };
    const options = {
      scheduleId: name,
      spec: {
        ...(cron !== undefined ? { cronExpressions: [cron] } : {}),
        ...(everyMs !== undefined ? { intervals: [{ every: everyMs }] } : {}),
        ...(timezone !== undefined ? { timezone } : {}),
      },
      action: {
        type: 'startWorkflow' as const,
        workflowType: RUNBOOK_WORKFLOW_TYPE,
        workflowId: name,
        taskQueue: session.target.taskQueue,
        args: [input],
        memo: { runbook: definition.name, schedule: name },
        // Each scheduled run carries the runbook and its non-secret inputs, as `tideline run` gives it.
        ...runMetadata(input),
      },
      policies: {
        overlap: OVERLAP_POLICIES[overlap],
        catchupWindow: catchupMs,
        pauseOnFailure: values['pause-on-failure'] === true,
      },
      memo: { [MEMO_KEY]: memo },
      state: {
        paused: signsLater || values.paused === true,
        note: values.note ?? `created by tideline from ${values.runbook}`,
      },
    } satisfies ScheduleOptions;
    /** Signs the created schedule's runs as its creator's, and gives it the state asked for. */
    const sign = async () => {
      if (!signsLater) return;
      const handle = session.client.schedule.getHandle(name);
      const created = await handle.describe();
      const startedBy = signScheduleStart(key, {
        scheduleId: name,
        scheduleCreatedAt: created.info.createdAt.getTime(),
        taskQueue: session.target.taskQueue,
        by,
        definition,
        inputs,
      });
      await handle.update(() => ({
        spec: options.spec,
        action: { ...options.action, args: [{ ...input, startedBy }] },
        policies: options.policies,
        state: { ...options.state, paused: values.paused === true },
      }));
    };
    let replaced = false;
    try {
      try {
        await session.client.schedule.create(options);
      } catch (error) {
        if ((error as { name?: unknown }).name !== 'ScheduleAlreadyRunning' || values.replace !== true)
          throw error;
        // Anew rather than updated: a schedule's memo (runbook, timing as written) cannot change.
        await session.client.schedule.getHandle(name).delete();
        await session.client.schedule.create(options);
        replaced = true;
      }
    } catch (error) {
      // The SDK reports a spec the server refused ("Minute is not in range [0-59]") as a TypeError.
      if (error instanceof TypeError) {
        throw new CliError(
          'CLI_USAGE',
          `Temporal refused the schedule: ${error.message}`,
          'check --cron, --every and --timezone',
        );
      }
      throw explainScheduleError(error, name, session.target) ?? error;
    }
    await sign();
    const description = await session.client.schedule.getHandle(name).describe();
    const nextRuns = description.info.nextActionTimes.slice(0, 3).map((time) => time.toISOString());
    if (ctx.globals.json) {
      ctx.stdout.write(
        `${JSON.stringify({ name, created: !replaced, replaced, runbook: definition.name, taskQueue: session.target.taskQueue, paused: description.state.paused, nextRuns })}\n`,
      );
    } else {
      const when =
        cron !== undefined
          ? `cron "${cron}"${timezone ? ` (${timezone})` : ' (UTC)'}`
          : `every ${values.every}`;
      ctx.stdout.write(
        `${replaced ? 'replaced' : 'created'} schedule ${name}: ${definition.name} ${when}, task queue "${session.target.taskQueue}"` +
          `${description.state.paused ? ', paused' : ''}\n`,
      );
      if (nextRuns.length > 0 && !description.state.paused)
        ctx.stdout.write(`next runs: ${nextRuns.join(', ')}\n`);
      ctx.stdout.write(
        `describe it: ${cliCommand(ctx, ['schedule', 'describe', name])}   run it now: ${cliCommand(ctx, ['schedule', 'trigger', name])}\n`,
      );
    }
    return EXIT.OK;
  });
}
