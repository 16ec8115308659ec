// `tideline history ID`: the per-step timeline of a run — when each step started, how long it
// took, how many attempts its API call or wait needed, and why it failed — from the run's report
// (or progress query while it runs) and the activity attempts in Temporal's event history (the
// run's, and its foreach batches').
import type { WorkflowHandle } from '@temporalio/client';
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { EXIT } from '../errors';
import {
  buildTimeline,
  foreachBatches,
  historyRuns,
  runDefinition,
  type HistorySource,
} from '../history-timeline';
import { historyJson, renderHistory, type RunHistoryView } from '../output/history-view';
import { styleFor } from '../output/style';
import { orderedSteps, queryProgress, readOutcome, runStatusOf } from '../run-observer';
import { withTemporal, type TemporalSession } from '../temporal';
import { runIdArgument } from '../workflow-id';
import type { StepRecord } from '../../contract/run-messages';

export const HISTORY_SPEC = {
  name: 'history',
  usage: 'ID',
  description: [
    'For each step of run ID: its state, start time, duration, the attempts its API call or wait',
    'took (retries after 5xx, 429 or timeouts), and the reason it failed. Compensation steps are',
    'listed under the step they undo. Activities are matched to steps by their activity id (the',
    'step key); activities of runs started before tideline 2026-11 carry numbers instead and are',
    'listed apart, under "activities outside the steps", with their attempts and last failure.',
    'Calls run as local activities (reads, changes, deletes since tideline 2026-12) carry numbers',
    'too; they are matched by their summary (the step name, else key) and action, and listed apart',
    'when several steps share that name. Steps a finished run never reached read "not run".',
    'A foreach over more than 100 items ran in batch child runs; their histories are read too.',
  ],
  options: {},
  optionHelp: [],
  examples: [
    'tideline history provision-production-service-3f9a1c',
    'tideline history provision-production-service-3f9a1c --json',
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

/** Bounds the histories read for one run (1,000 items make 10 batches; nested loops more). */
const MAX_BATCH_HISTORIES = 200;

type HistoryEvents = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>;

/**
 * The run's history and those of its foreach batches (and theirs), which hold the activities of
 * the iterations they ran. A batch whose history is gone (retention) is left out: its iterations
 * then show no attempts, and the foreach row still names the batch run.
 */
async function historySources(
  session: TemporalSession,
  workflowId: string,
  events: HistoryEvents,
  steps: StepRecord[],
): Promise<HistorySource[]> {
  const converter = session.client.options.loadedDataConverter;
  const sources: HistorySource[] = [{ workflowId, runs: await historyRuns(events, converter) }];
  for (let at = 0; at < sources.length; at++) {
    for (const batch of foreachBatches(sources[at]!, steps)) {
      if (sources.length > MAX_BATCH_HISTORIES) return sources;
      try {
        const history = await session.client.workflow.getHandle(batch.workflowId).fetchHistory();
        sources.push({
          workflowId: batch.workflowId,
          runs: await historyRuns(history.events ?? [], converter),
        });
      } catch {
        // Not readable any more: see above.
      }
    }
  }
  return sources;
}

/** The run's per-step timeline with what its report and Temporal's histories say. */
export async function readRunHistory(session: TemporalSession, workflowId: string): Promise<RunHistoryView> {
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
  const steps = orderedSteps(progress?.steps ?? []);
  const view: RunHistoryView = {
    workflowId,
    runId: description.runId,
    runbook: progress?.runbook ?? definition?.name ?? null,
    status: progress?.status ?? runStatusOf(description.status.name),
    startedAt: progress?.startedAt ?? description.startTime.getTime(),
    endedAt: progress?.endedAt ?? description.closeTime?.getTime(),
    failure: outcome?.failure ?? progress?.failure ?? null,
    timeline: buildTimeline(steps, await historySources(session, workflowId, events, steps)),
    events: events.length,
    actions: progress?.actions ?? [],
    approvals: progress?.approvals ?? [],
  };
  return view;
}

export const historyCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(HISTORY_SPEC, argv, ctx);
  const workflowId = runIdArgument(parsed.positionals);
  const result = await withTemporal(ctx, (session) => readRunHistory(session, workflowId));

  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify(historyJson(result))}\n`);
    return EXIT.OK;
  }
  const out = renderHistory(result, styleFor(ctx), Date.now());
  ctx.stdout.write(`${out.join('\n')}\n`);
  return EXIT.OK;
};
