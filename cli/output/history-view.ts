// How `tideline history` reads: a table of the run's steps (state, start, duration, attempts of
// its API call or wait, why it failed or what it undoes, which child run it started), then the
// activities that belong to no step, what operators did on a held run, and the run's failure; or
// the same as one JSON document.
import type { OperatorAction, StepStatus } from '../../contract/run-messages';
import type { ApprovalAuditEntry } from '../../contract/approval-messages';
import type { ActivityRun, OtherActivity, Timeline, TimelineStep } from '../history-timeline';
import { stepDepth } from '../run-observer';
import { printableDeep } from '../../cloud/printable';
import { compensationNote, resourcesNote } from './resource-notes';
import { actionLine, auditLine, stepJson } from './run-report';
import { statusColour, stepElapsed } from './step-view';
import { formatClock, formatDuration, isoTime, type Style } from './style';

export interface RunHistoryView {
  workflowId: string;
  runId: string;
  runbook: string | null;
  status: string;
  startedAt: number;
  endedAt?: number;
  failure: { stepKey?: string; type: string; message: string } | null;
  timeline: Timeline;
  /** How many events the run's history holds. */
  events: number;
  /** What operators did on the run while it was held (retry, skip, rollback) and hold timeouts. */
  actions?: OperatorAction[];
  /** Every decision sent to its approval steps with approvers, counted or refused. */
  approvals?: ApprovalAuditEntry[];
}

/** Why the step's activity had to be retried (the failure before its last attempt). */
function lastRetry(activity: ActivityRun | undefined): string | undefined {
  return activity?.retriedAfter !== undefined && activity.attempts > 1
    ? `last retry after: ${activity.retriedAfter}`
    : undefined;
}

function stepNote(step: TimelineStep, undos: readonly TimelineStep[] = []): string {
  const parts: string[] = [];
  const retry = lastRetry(step.activity);
  if (step.error) parts.push(`${step.error.type}: ${step.error.message}`);
  if (retry !== undefined && step.status !== 'failed') parts.push(retry);
  if (step.compensates) parts.push(`undoes ${step.compensates}`);
  if (step.child) parts.push(`child run ${step.child.workflowId}`);
  const batches = step.batches ?? [];
  const [first] = batches;
  const last = batches[batches.length - 1];
  if (batches.length === 1 && first) parts.push(`batch run ${first.workflowId}`);
  if (batches.length > 1 && first && last)
    parts.push(`batch runs ${first.workflowId} … ${last.workflowId} (${batches.length})`);
  const resources = resourcesNote(step);
  if (resources !== undefined) parts.push(resources);
  const compensation = compensationNote(step, undos);
  if (compensation !== undefined) parts.push(compensation);
  return parts.join(' · ');
}

/** A run's states once it has ended (not running, held or compensating). */
const ENDED = new Set(['succeeded', 'failed', 'cancelled', 'terminated', 'timed-out']);

/**
 * A step's state as shown: one that is still `pending` when the run has ended was never reached
 * (`not run` in text, `not-run` in JSON), which a reader must not take for "about to run".
 */
export function shownStatus(step: TimelineStep, runStatus: string, json: boolean): string {
  if (step.status !== 'pending' || !ENDED.has(runStatus)) return step.status;
  return json ? 'not-run' : 'not run';
}

function attemptsCell(attempts: number | undefined, scheduled: boolean): string {
  if (attempts !== undefined && attempts > 0) return String(attempts);
  return scheduled ? '…' : ''; // scheduled, no attempt started yet
}

function activityDuration(run: ActivityRun): string {
  return run.endedAt === undefined ? run.outcome : formatDuration(run.endedAt - run.scheduledAt);
}

/** Left-aligned columns; the last one is not padded; `colour` styles one column's cells. */
function table(
  header: string[],
  rows: string[][],
  style: Style,
  colour?: { column: number; of: (cell: string) => (text: string) => string },
): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[], styled: boolean): string =>
    cells
      .map((cell, column) => {
        const padded = column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0);
        return styled && colour?.column === column ? colour.of(cell)(padded) : padded;
      })
      .join('  ')
      .trimEnd();
  return [style.bold(line(header, false)), ...rows.map((row) => line(row, true))];
}

export function renderHistory(raw: RunHistoryView, style: Style, now: number): string[] {
  // Everything a run recorded is outside text (printable.ts); decisions escape their own fields.
  const view = printableDeep(raw);
  const took = view.endedAt !== undefined ? ` · ${formatDuration(view.endedAt - view.startedAt)}` : '';
  const out = [
    `${style.bold(view.runbook ?? view.workflowId)} · run ${view.workflowId} · ${view.status}${took} · ${view.events} history events`,
  ];
  const { steps, otherActivities } = view.timeline;
  if (steps.length === 0)
    out.push('  (no step records: no worker answered; start one with `tideline worker`)');
  else {
    const undos = new Map<string, TimelineStep[]>();
    for (const step of steps) {
      if (step.compensates !== undefined)
        undos.set(step.compensates, [...(undos.get(step.compensates) ?? []), step]);
    }
    const rows = steps.map((step) => {
      const elapsed = stepElapsed(step, now);
      return [
        `${'  '.repeat(stepDepth(step.key))}${step.key}`,
        step.kind,
        shownStatus(step, view.status, false),
        step.startedAt !== undefined ? formatClock(step.startedAt) : '',
        step.status === 'running' ? 'running' : elapsed === undefined ? '' : formatDuration(elapsed),
        attemptsCell(step.attempts, step.activity !== undefined),
        stepNote(step, undos.get(step.key)),
      ];
    });
    const header = ['STEP', 'KIND', 'STATUS', 'START', 'DURATION', 'ATTEMPTS', 'NOTE'];
    out.push(
      ...table(header, rows, style, {
        column: 2,
        of: (status) => statusColour(status as StepStatus, style),
      }),
    );
  }
  if (otherActivities.length > 0) {
    out.push('', style.bold('activities outside the steps (not attributed to a step):'));
    const rows = otherActivities.map((run) => [
      run.activityId,
      run.type,
      run.outcome,
      formatClock(run.scheduledAt),
      activityDuration(run),
      attemptsCell(run.attempts, true),
      [run.reason, run.failure, run.retriedAfter === run.failure ? undefined : lastRetry(run)]
        .filter((part) => part !== undefined)
        .join(' · '),
    ]);
    out.push(...table(['ACTIVITY', 'TYPE', 'OUTCOME', 'START', 'DURATION', 'ATTEMPTS', 'NOTE'], rows, style));
  }
  const actions = view.actions ?? [];
  if (actions.length > 0) {
    out.push('', style.bold('operator actions on the held run:'));
    for (const action of actions) out.push(`  ${actionLine(action)}`);
  }
  const approvals = raw.approvals ?? [];
  if (approvals.length > 0) {
    out.push('', style.bold('decisions on approval steps with approvers:'));
    for (const entry of approvals) out.push(`  ${auditLine(entry)}`);
  }
  if (view.failure && view.status !== 'succeeded') {
    const where = view.failure.stepKey ? ` at ${view.failure.stepKey}` : '';
    const verb = view.status === 'cancelled' ? 'cancelled' : 'failed';
    out.push(style.red(`${verb}${where}: ${view.failure.type}: ${view.failure.message}`));
  }
  return out;
}

function activityJson(run: ActivityRun): Record<string, unknown> {
  return {
    activityId: run.activityId,
    type: run.type,
    scheduledAt: isoTime(run.scheduledAt),
    endedAt: isoTime(run.endedAt) ?? null,
    attempts: run.attempts,
    outcome: run.outcome,
    lastFailure: run.failure ?? null,
    retriedAfter: run.retriedAfter ?? null,
    // A local activity (patch localCalls): its attempts retried inside the worker left no failure.
    local: run.local !== undefined,
  };
}

export function historyJson(view: RunHistoryView): Record<string, unknown> {
  return {
    workflowId: view.workflowId,
    runId: view.runId,
    runbook: view.runbook,
    status: view.status,
    startedAt: isoTime(view.startedAt) ?? null,
    endedAt: isoTime(view.endedAt) ?? null,
    failure: view.failure,
    historyEvents: view.events,
    steps: view.timeline.steps.map((step) => ({
      ...stepJson(step),
      status: shownStatus(step, view.status, true),
      attempts: step.attempts ?? null,
      resources: step.resources ?? [],
      activity: step.activity ? activityJson(step.activity) : null,
      child: step.child
        ? {
            workflowId: step.child.workflowId,
            outcome: step.child.outcome,
            startedAt: isoTime(step.child.startedAt),
            endedAt: isoTime(step.child.endedAt) ?? null,
            failure: step.child.failure ?? null,
          }
        : null,
      batches:
        step.batches?.map((batch) => ({ workflowId: batch.workflowId, outcome: batch.outcome })) ?? null,
    })),
    otherActivities: view.timeline.otherActivities.map((run: OtherActivity) => ({
      ...activityJson(run),
      reason: run.reason,
    })),
    actions: (view.actions ?? []).map((action) => ({ ...action, at: isoTime(action.at) ?? null })),
    approvals: view.approvals ?? [],
  };
}
