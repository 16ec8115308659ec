// `tideline list`: recent runs from Temporal's visibility store (workflow type runbookWorkflow),
// newest first, filtered by tideline's search attributes (contract/search-attributes.ts):
// --runbook, --project, --service and --state are conditions of the visibility query, so they
// work on any number of runs (the same query works in the Web UI and `temporal workflow list`).
// `--held` lists running runs and asks each for its progress (the `progress` query, answered by a
// worker): it also finds held runs started before runs kept a TidelineState.
//
// Newest first: Temporal lists running runs first and closed ones by close time, so the command
// reads the running ones, then the closed ones until none left can have started later than the
// runs it has (a run closes after it starts), and sorts by start time.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { parseCommand, integerOption, type CommandSpec } from '../args';
import type { Command } from '../context';
import { CliError, EXIT } from '../errors';
import { formatDuration, styleFor } from '../output/style';
import { printable } from '../../cloud/printable';
import { RUNBOOK_WORKFLOW_TYPE, queryProgress, runStatusOf } from '../run-observer';
import { withTemporal, type TemporalSession } from '../temporal';
import {
  PROJECT_ATTRIBUTE,
  RUNBOOK_ATTRIBUTE,
  SERVICES_ATTRIBUTE,
  AWAITING_APPROVAL_ATTRIBUTE,
  STATE_ATTRIBUTE,
} from '../../contract/search-attributes';

/** TidelineState's values (workflows/run-visibility.ts). */
export const RUN_STATES = [
  'running',
  'waiting-for-approval',
  'held',
  'compensating',
  'succeeded',
  'failed',
  'cancelled',
] as const;

/** How many closed runs `list` reads at most to find the newest ones. */
const MAX_SCANNED = 5_000;

export const LIST_SPEC = {
  name: 'list',
  usage:
    '[--running | --failed | --held] [--state STATE] [--runbook NAME] [--project ID] [--service ID] [--awaiting-approval NAME] [--limit N]',
  description: [
    'Lists runbook runs, newest first (by start time). Runs started by a parent runbook (child',
    'runbooks) are left out (they show up as steps of their parent), except with --held, --state,',
    '--service and --awaiting-approval, where the child is what waits or names the service. --runbook, --project, --service',
    "and --state query the runs' search attributes (TidelineRunbook, TidelineProject,",
    'TidelineServices, TidelineState), so runs started before tideline kept them (2026-12) are not',
    'found by them. Visibility is eventually consistent: a run started a moment ago may take a',
    'second to appear. --held lists runs held at a failed step (child runbooks included): it asks',
    'each running run for its progress, so a worker must be polling. --awaiting-approval lists runs',
    'whose pending approval names this approver or group (TidelineAwaitingApproval, as the runbook',
    'writes it: `group:dba` finds steps naming the group, not steps naming its members).',
  ],
  options: {
    running: { type: 'boolean' },
    failed: { type: 'boolean' },
    held: { type: 'boolean' },
    state: { type: 'string' },
    runbook: { type: 'string' },
    project: { type: 'string' },
    service: { type: 'string' },
    'awaiting-approval': { type: 'string' },
    limit: { type: 'string', short: 'n' },
  },
  optionHelp: [
    ['--running', 'only runs that are still going'],
    ['--failed', 'only runs that failed'],
    ['--held', 'only runs held at a failed step, waiting for retry / skip / rollback'],
    ['--state STATE', `only runs in this state: ${RUN_STATES.join(', ')}`],
    ['--runbook NAME', 'only runs of this runbook (its `name`)'],
    ['--project ID', 'only runs in this project (their `project_id` input)'],
    ['--service ID', 'only runs that named or created this service'],
    ['--awaiting-approval NAME', 'only runs waiting for an approval that names NAME or group:NAME'],
    ['-n, --limit N', 'at most N runs (default 20)'],
  ],
  examples: [
    'tideline list',
    'tideline list --running',
    'tideline list --state waiting-for-approval',
    'tideline list --service d1k5vk7hf2',
    'tideline list --project d1k5vk7hf2 --failed',
    'tideline list --held',
    'tideline list --awaiting-approval group:dba',
    'tideline list --failed --runbook provision-production-service --limit 5 --json',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

export interface RunListEntry {
  workflowId: string;
  runId: string;
  runbook: string | null;
  status: string;
  /** TidelineState: what a running run waits for, or how it ended (null: an older run). */
  state: string | null;
  project: string | null;
  startTime: string;
  closeTime: string | null;
}

/** The runbook name of a run whose memo is missing: ids look like `<name>-<6 hex digits>`. */
export function runbookFromId(workflowId: string): string | null {
  return /^(.+)-[0-9a-f]{6}$/.exec(workflowId)?.[1] ?? null;
}

function localTime(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A value for a visibility query's string literal: no quotes, backslashes or control characters. */
function literal(flag: string, value: string): string {
  const control = [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (value === '' || value.length > 256 || control || /['"\\]/.test(value)) {
    throw new CliError(
      'CLI_USAGE',
      `--${flag} must be 1–256 characters without quotes, backslashes or control characters`,
    );
  }
  return `'${value}'`;
}

/** The visibility query's conditions for the command's filters (without the status). */
export function listConditions(values: {
  runbook?: string | undefined;
  project?: string | undefined;
  service?: string | undefined;
  state?: string | undefined;
  'awaiting-approval'?: string | undefined;
}): string[] {
  const clauses = [`WorkflowType = '${RUNBOOK_WORKFLOW_TYPE}'`];
  if (values.runbook !== undefined)
    clauses.push(`${RUNBOOK_ATTRIBUTE.name} = ${literal('runbook', values.runbook)}`);
  if (values.project !== undefined)
    clauses.push(`${PROJECT_ATTRIBUTE.name} = ${literal('project', values.project)}`);
  // On a KeywordList, `=` means "holds this value".
  if (values.service !== undefined)
    clauses.push(`${SERVICES_ATTRIBUTE.name} = ${literal('service', values.service)}`);
  const approver = values['awaiting-approval'];
  if (approver !== undefined)
    clauses.push(`${AWAITING_APPROVAL_ATTRIBUTE.name} = ${literal('awaiting-approval', approver)}`);
  if (values.state !== undefined) {
    if (!(RUN_STATES as readonly string[]).includes(values.state)) {
      throw new CliError(
        'CLI_USAGE',
        `unknown --state "${values.state}"`,
        `one of: ${RUN_STATES.join(', ')}`,
      );
    }
    clauses.push(`${STATE_ATTRIBUTE.name} = '${values.state}'`);
  }
  return clauses;
}

function entryOf(info: WorkflowExecutionInfo, held: boolean): RunListEntry {
  const memoName = info.memo?.runbook;
  const attributes = info.typedSearchAttributes;
  const runbook =
    attributes.get(RUNBOOK_ATTRIBUTE) ??
    (typeof memoName === 'string' ? memoName : runbookFromId(info.workflowId));
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    runbook,
    status: held ? 'held' : runStatusOf(info.status.name),
    state: held ? 'held' : (attributes.get(STATE_ATTRIBUTE) ?? null),
    project: attributes.get(PROJECT_ATTRIBUTE) ?? null,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
  };
}

/** The newest `limit` runs the query finds (running and closed), newest first. */
async function newestRuns(
  session: TemporalSession,
  clauses: string[],
  scope: { running: boolean; closed: string | undefined; held: boolean; children: boolean },
  limit: number,
): Promise<RunListEntry[]> {
  const found: RunListEntry[] = [];
  const accept = async (info: WorkflowExecutionInfo): Promise<boolean> => {
    // A child runbook holds, waits or names a service in its own run: --held, --state and
    // --service show it (it is what the operator acts on, or looks for).
    if (info.parentExecution && !scope.children) return false;
    if (scope.held) {
      const progress = await queryProgress(session, session.client.workflow.getHandle(info.workflowId));
      if (progress?.status !== 'held') return false;
    }
    found.push(entryOf(info, scope.held));
    return true;
  };
  if (scope.running) {
    let running = 0;
    const query = [...clauses, `ExecutionStatus = 'Running'`].join(' AND ');
    // Running runs come newest first.
    for await (const info of session.client.workflow.list({ query })) {
      if ((await accept(info)) && ++running >= limit) break;
    }
  }
  if (scope.closed !== undefined) {
    let scanned = 0;
    const query = [...clauses, scope.closed].join(' AND ');
    // Closed runs come by close time, newest first: once `limit` runs started after this one
    // closed, no run still to come (started before it closed) can be among the newest.
    for await (const info of session.client.workflow.list({ query })) {
      const closed = info.closeTime?.getTime() ?? 0;
      if (found.filter((run) => Date.parse(run.startTime) > closed).length >= limit) break;
      await accept(info);
      if (++scanned >= MAX_SCANNED) break;
    }
  }
  return found.sort((a, b) => Date.parse(b.startTime) - Date.parse(a.startTime)).slice(0, limit);
}

export const listCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(LIST_SPEC, argv, ctx);
  const { values } = parsed;
  if ([values.running, values.failed, values.held].filter(Boolean).length > 1)
    throw new CliError('CLI_USAGE', '--running, --failed and --held exclude each other');
  const limit = integerOption('limit', values.limit, 1, 20);
  const clauses = listConditions(values);
  const held = values.held === true;
  const scope = {
    running: values.failed !== true,
    closed: values.failed
      ? `ExecutionStatus = 'Failed'`
      : values.running || held
        ? undefined
        : `ExecutionStatus != 'Running'`,
    held,
    children:
      held ||
      values.state !== undefined ||
      values.service !== undefined ||
      values['awaiting-approval'] !== undefined,
  };
  const runs = await withTemporal(ctx, (session) => newestRuns(session, clauses, scope, limit));

  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify({ runs })}\n`);
    return EXIT.OK;
  }
  if (runs.length === 0) {
    ctx.stdout.write('no runs found\n');
    return EXIT.OK;
  }
  const style = styleFor(ctx);
  const rows = runs.map((run) => {
    const end = run.closeTime ? Date.parse(run.closeTime) : Date.now();
    // A run's id and runbook name are whatever its start carried: shown escaped.
    return [
      printable(run.workflowId),
      printable(run.runbook ?? '–'),
      printable(run.status === 'running' && run.state !== null ? run.state : run.status),
      localTime(new Date(run.startTime)),
      formatDuration(end - Date.parse(run.startTime)),
    ];
  });
  const header = ['RUN ID', 'RUNBOOK', 'STATUS', 'STARTED', 'DURATION'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const colour = (status: string): ((text: string) => string) =>
    status === 'succeeded'
      ? style.green
      : status === 'running' || status === 'compensating'
        ? style.cyan
        : status === 'held' || status === 'waiting-for-approval'
          ? style.yellow
          : style.red;
  const line = (cells: string[], paint: (column: number, text: string) => string): string =>
    cells
      .map((cell, column) => paint(column, cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const out = [style.bold(line(header, (_, text) => text))];
  for (const row of rows)
    out.push(line(row, (column, text) => (column === 2 ? colour(row[2] ?? '')(text) : text)));
  ctx.stdout.write(`${out.join('\n')}\n`);
  return EXIT.OK;
};
