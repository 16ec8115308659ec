// `tideline history ID`: the per-step timeline of a run — when each step started, how long it
// took, how many attempts its API call or wait needed, and why it failed — from the run's report
// (or progress query while it runs) and the activity attempts in Temporal's event history.
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { EXIT } from '../errors';
import {
  activityRuns,
  activityTypes,
  buildTimeline,
  runDefinition,
  type TimelineStep,
} from '../history-timeline';
import { printCommandHelp } from '../output/help';
import { stepJson } from '../output/run-report';
import { statusColour, stepElapsed } from '../output/step-view';
import { formatClock, formatDuration, isoTime, styleFor } from '../output/style';
import { orderedSteps, queryProgress, readOutcome, runStatusOf, stepDepth } from '../run-observer';
import { withTemporal } from '../temporal';

export const HISTORY_SPEC = {
  name: 'history',
  usage: 'ID',
  summary: 'per-step timeline of a run with attempts and durations',
  description: [
    'For each step of run ID: its state, start time, duration, the attempts its API call or wait',
    'took (retries after 5xx, 429 or timeouts), and the reason it failed. Compensation steps are',
    'listed under the step they undo.',
  ],
  options: {},
  optionHelp: [],
  examples: [
    'tideline history provision-production-service-3f9a1c',
    'tideline history provision-production-service-3f9a1c --json',
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

function formatElapsed(ms: number | undefined): string {
  return ms === undefined ? '' : formatDuration(ms);
}

function note(step: TimelineStep): string {
  const parts: string[] = [];
  if (step.error) parts.push(`${step.error.type}: ${step.error.message}`);
  else if (step.activity?.failure && step.activity.attempts > 1)
    parts.push(`last retry after: ${step.activity.failure}`);
  if (step.compensates) parts.push(`undoes ${step.compensates}`);
  return parts.join(' · ');
}

export const historyCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(HISTORY_SPEC, argv, ctx);
  if (parsed.help) return printCommandHelp(HISTORY_SPEC, ctx);
  const [workflowId] = parsed.positionals as [string];
  const result = await withTemporal(ctx, async (session) => {
    const handle = session.client.workflow.getHandle(workflowId);
    const description = await handle.describe();
    const running = description.status.name === 'RUNNING';
    const outcome = running
      ? undefined
      : await readOutcome(session, handle, {
          workflowId,
          runId: description.runId,
          temporalStatus: description.status.name,
        });
    const progress = running ? await queryProgress(session, handle) : outcome?.progress;
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const converter = session.client.options.loadedDataConverter;
    const definition = await runDefinition(events, converter);
    const steps = buildTimeline(
      orderedSteps(progress?.steps ?? []),
      await activityRuns(events, converter),
      activityTypes(definition),
    );
    return {
      workflowId,
      runId: description.runId,
      runbook: progress?.runbook ?? definition?.name ?? null,
      status: progress?.status ?? runStatusOf(description.status.name),
      startedAt: progress?.startedAt ?? description.startTime.getTime(),
      endedAt: progress?.endedAt ?? description.closeTime?.getTime(),
      failure: outcome?.failure ?? progress?.failure ?? null,
      steps,
      events: events.length,
    };
  });

  if (ctx.globals.json) {
    const json = {
      workflowId: result.workflowId,
      runId: result.runId,
      runbook: result.runbook,
      status: result.status,
      startedAt: isoTime(result.startedAt) ?? null,
      endedAt: isoTime(result.endedAt) ?? null,
      failure: result.failure,
      historyEvents: result.events,
      steps: result.steps.map((step) => ({
        ...stepJson(step),
        attempts: step.attempts ?? null,
        activity: step.activity
          ? {
              type: step.activity.type,
              scheduledAt: isoTime(step.activity.scheduledAt),
              endedAt: isoTime(step.activity.endedAt) ?? null,
              attempts: step.activity.attempts,
              outcome: step.activity.outcome,
              lastFailure: step.activity.failure ?? null,
            }
          : null,
      })),
    };
    ctx.stdout.write(`${JSON.stringify(json)}\n`);
    return EXIT.OK;
  }

  const style = styleFor(ctx);
  const took = result.endedAt !== undefined ? ` · ${formatDuration(result.endedAt - result.startedAt)}` : '';
  const out = [
    `${style.bold(result.runbook ?? workflowId)} · run ${workflowId} · ${result.status}${took} · ${result.events} history events`,
  ];
  if (result.steps.length === 0)
    out.push('  (no step records: no worker answered; start one with `tideline worker`)');
  const rows = result.steps.map((step) => [
    `${'  '.repeat(stepDepth(step.key))}${step.key}`,
    step.kind,
    step.status,
    step.startedAt !== undefined ? formatClock(step.startedAt) : '',
    step.status === 'running' ? 'running' : formatElapsed(stepElapsed(step, Date.now())),
    step.attempts !== undefined && step.attempts > 0 ? String(step.attempts) : step.activity ? '…' : '',
    note(step),
  ]);
  const header = ['STEP', 'KIND', 'STATUS', 'START', 'DURATION', 'ATTEMPTS', 'NOTE'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[], status?: string): string =>
    cells
      .map((cell, column) => {
        const padded = column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0);
        return column === 2 && status
          ? statusColour(status as TimelineStep['status'], style)(padded)
          : padded;
      })
      .join('  ')
      .trimEnd();
  out.push(style.bold(line(header)));
  for (const row of rows) out.push(line(row, row[2]));
  if (result.failure && result.status !== 'succeeded') {
    const where = result.failure.stepKey ? ` at ${result.failure.stepKey}` : '';
    const verb = result.status === 'cancelled' ? 'cancelled' : 'failed';
    out.push(style.red(`${verb}${where}: ${result.failure.type}: ${result.failure.message}`));
  }
  ctx.stdout.write(`${out.join('\n')}\n`);
  return EXIT.OK;
};
