// `tideline list`: recent runs from Temporal's visibility store (workflow type runbookWorkflow),
// newest first, optionally only running or failed ones, or those of one runbook. The runbook name
// comes from the memo `run` sets (decrypted with the shared keys), else from the run id.
// `--held`: Temporal has no status for "held at a failed step", and search attributes would need
// registering on every server, so it lists running runs and asks each for its progress (the
// `progress` query, answered by a worker): works on any server, the dev server included.
import { parseCommand, integerOption, type CommandSpec } from '../args';
import type { Command } from '../context';
import { CliError, EXIT } from '../errors';
import { printCommandHelp } from '../output/help';
import { formatDuration, styleFor } from '../output/style';
import { RUNBOOK_WORKFLOW_TYPE, queryProgress, runStatusOf } from '../run-observer';
import { withTemporal } from '../temporal';

export const LIST_SPEC = {
  name: 'list',
  usage: '[--running | --failed | --held] [--runbook NAME] [--limit N]',
  summary: 'list runs (running, failed, by runbook)',
  description: [
    'Lists runbook runs, newest first. Runs started by a parent runbook (child runbooks) are left',
    'out; they show up as steps of their parent. Visibility is eventually consistent: a run started',
    'a moment ago may take a second to appear. --held lists runs held at a failed step (child',
    'runbooks included): it asks each running run for its progress, so a worker must be polling.',
  ],
  options: {
    running: { type: 'boolean' },
    failed: { type: 'boolean' },
    held: { type: 'boolean' },
    runbook: { type: 'string' },
    limit: { type: 'string', short: 'n' },
  },
  optionHelp: [
    ['--running', 'only runs that are still going'],
    ['--failed', 'only runs that failed'],
    ['--held', 'only runs held at a failed step, waiting for retry / skip / rollback'],
    ['--runbook NAME', 'only runs of this runbook (its `name`)'],
    ['-n, --limit N', 'at most N runs (default 20)'],
  ],
  examples: [
    'tideline list',
    'tideline list --running',
    'tideline list --held',
    'tideline list --failed --runbook provision-production-service --limit 5 --json',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

export interface RunListEntry {
  workflowId: string;
  runId: string;
  runbook: string | null;
  status: string;
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

export const listCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(LIST_SPEC, argv, ctx);
  if (parsed.help) return printCommandHelp(LIST_SPEC, ctx);
  const { values } = parsed;
  if ([values.running, values.failed, values.held].filter(Boolean).length > 1)
    throw new CliError('CLI_USAGE', '--running, --failed and --held exclude each other');
  const limit = integerOption('limit', values.limit, 1, 20);
  const clauses = [`WorkflowType = '${RUNBOOK_WORKFLOW_TYPE}'`];
  if (values.running || values.held) clauses.push(`ExecutionStatus = 'Running'`);
  if (values.failed) clauses.push(`ExecutionStatus = 'Failed'`);

  const runs = await withTemporal(ctx, async (session) => {
    const found: RunListEntry[] = [];
    for await (const info of session.client.workflow.list({ query: clauses.join(' AND ') })) {
      // A child runbook holds in its own run: --held shows it (it is what the operator acts on).
      if (info.parentExecution && !values.held) continue;
      const memoName = info.memo?.runbook;
      const runbook = typeof memoName === 'string' ? memoName : runbookFromId(info.workflowId);
      if (values.runbook !== undefined && runbook !== values.runbook) continue;
      if (values.held) {
        const progress = await queryProgress(session, session.client.workflow.getHandle(info.workflowId));
        if (progress?.status !== 'held') continue;
      }
      found.push({
        workflowId: info.workflowId,
        runId: info.runId,
        runbook,
        status: values.held ? 'held' : runStatusOf(info.status.name),
        startTime: info.startTime.toISOString(),
        closeTime: info.closeTime?.toISOString() ?? null,
      });
      if (found.length >= limit) break;
    }
    return found;
  });

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
    return [
      run.workflowId,
      run.runbook ?? '–',
      run.status,
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
      : status === 'running'
        ? style.cyan
        : status === 'held'
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
