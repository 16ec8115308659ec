// `tideline history ID`: the per-step timeline of a run — when each step started, how long it
// took, how many attempts its API call or wait needed, and why it failed — from the run's report
// (or progress query while it runs) and the activity attempts in Temporal's event history.
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { EXIT } from '../errors';
import { buildTimeline, historyRuns, runDefinition } from '../history-timeline';
import { printCommandHelp } from '../output/help';
import { historyJson, renderHistory, type RunHistoryView } from '../output/history-view';
import { styleFor } from '../output/style';
import { orderedSteps, queryProgress, readOutcome, runStatusOf } from '../run-observer';
import { withTemporal } from '../temporal';

export const HISTORY_SPEC = {
  name: 'history',
  usage: 'ID',
  summary: 'per-step timeline of a run with attempts and durations',
  description: [
    'For each step of run ID: its state, start time, duration, the attempts its API call or wait',
    'took (retries after 5xx, 429 or timeouts), and the reason it failed. Compensation steps are',
    'listed under the step they undo. Activities are matched to steps by their activity id (the',
    'step key); activities of runs started before tideline 2026-11 carry numbers instead and are',
    'listed apart, under "activities outside the steps", with their attempts and last failure.',
  ],
  options: {},
  optionHelp: [],
  examples: [
    'tideline history provision-production-service-3f9a1c',
    'tideline history provision-production-service-3f9a1c --json',
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

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
    const view: RunHistoryView = {
      workflowId,
      runId: description.runId,
      runbook: progress?.runbook ?? definition?.name ?? null,
      status: progress?.status ?? runStatusOf(description.status.name),
      startedAt: progress?.startedAt ?? description.startTime.getTime(),
      endedAt: progress?.endedAt ?? description.closeTime?.getTime(),
      failure: outcome?.failure ?? progress?.failure ?? null,
      timeline: buildTimeline(
        orderedSteps(progress?.steps ?? []),
        await historyRuns(events, converter),
        workflowId,
      ),
      events: events.length,
    };
    return view;
  });

  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify(historyJson(result))}\n`);
    return EXIT.OK;
  }
  const out = renderHistory(result, styleFor(ctx), Date.now());
  ctx.stdout.write(`${out.join('\n')}\n`);
  return EXIT.OK;
};
