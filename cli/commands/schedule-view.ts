// `tideline schedule list` and `tideline schedule describe NAME`: what runs when, whether it is
// paused and why, the next and the recent runs (with how they ended), and the inputs it passes
// (secret ones masked). `--json` prints one JSON value.
import type {
  Client,
  ScheduleDescription,
  ScheduleSpecDescription,
  ScheduleSummary,
} from '@temporalio/client';
import { formatDuration as formatRunbookDuration } from '../../dsl/durations';
import type { JsonValue } from '../../dsl/expressions';
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import { runStatusOf, type RunStatusName } from '../run-observer';
import { SECRET_MASK } from '../../cloud/redact-text';
import { memoOf, overlapName, type ScheduleMemo } from './schedule-common';

export interface ScheduleRunJson {
  workflowId: string;
  runId: string;
  scheduledAt: string;
  startedAt: string;
  /** How the run is doing now (`running`, `succeeded`, `failed`, …); null when it is gone. */
  status: RunStatusName | null;
}

export interface ScheduleJson {
  name: string;
  runbook: string | null;
  file: string | null;
  when: string;
  cron: string | null;
  every: string | null;
  timezone: string | null;
  taskQueue: string | null;
  overlap: string;
  catchupWindow: string;
  pauseOnFailure: boolean;
  /** The runs' `onFailure` override (`schedule create --on-failure`), null: the runbook's own. */
  onFailure: string | null;
  paused: boolean;
  note: string | null;
  inputs: Record<string, JsonValue>;
  nextRuns: string[];
  recentRuns: ScheduleRunJson[];
  runningRuns: { workflowId: string; runId: string }[];
  actionsTaken: number;
  missedCatchupWindow: number;
  skippedOverlap: number;
  createdAt: string;
  updatedAt: string | null;
}

export interface ScheduleListItemJson {
  name: string;
  runbook: string | null;
  when: string;
  paused: boolean;
  note: string | null;
  nextRun: string | null;
  lastRun: { workflowId: string; startedAt: string } | null;
}

/** "cron 0 20 * * 1-5 (Europe/Berlin)", "every 1h", or Temporal's calendar when tideline did not create it. */
export function whenText(spec: ScheduleSpecDescription | undefined, memo: ScheduleMemo | undefined): string {
  if (memo?.cron !== undefined) return `cron ${memo.cron} (${memo.timezone ?? spec?.timezone ?? 'UTC'})`;
  if (memo?.every !== undefined) return `every ${memo.every}`;
  const parts: string[] = [];
  for (const interval of spec?.intervals ?? []) parts.push(`every ${formatRunbookDuration(interval.every)}`);
  if ((spec?.calendars ?? []).length > 0)
    parts.push(`calendar (${spec?.calendars?.length} entr${spec?.calendars?.length === 1 ? 'y' : 'ies'})`);
  return parts.length > 0 ? parts.join(', ') : 'no timing (trigger only)';
}

function maskedInputs(
  description: ScheduleDescription,
  memo: ScheduleMemo | undefined,
): Record<string, JsonValue> {
  const input = description.action.args?.[0] as Partial<RunbookWorkflowInput> | undefined;
  const given = (input?.inputs ?? {}) as Record<string, JsonValue>;
  const declared = input?.definition?.inputs ?? {};
  const secret = new Set([
    ...(memo?.secretInputs ?? []),
    ...Object.entries(declared)
      .filter(([, spec]) => spec.secret === true)
      .map(([name]) => name),
  ]);
  return Object.fromEntries(
    Object.entries(given).map(([name, value]) => [
      name,
      secret.has(name) && value !== null ? SECRET_MASK : value,
    ]),
  );
}

async function runStatus(client: Client, workflowId: string, runId: string): Promise<RunStatusName | null> {
  try {
    const description = await client.workflow.getHandle(workflowId, runId).describe();
    return runStatusOf(description.status.name);
  } catch {
    return null;
  }
}

export async function scheduleJson(
  client: Client,
  name: string,
  description: ScheduleDescription,
): Promise<ScheduleJson> {
  const memo = memoOf(description.memo);
  const recent = description.info.recentActions.slice(-10);
  const recentRuns = await Promise.all(
    recent.map(async (action) => ({
      workflowId: action.action.workflow.workflowId,
      runId: action.action.workflow.firstExecutionRunId,
      scheduledAt: action.scheduledAt.toISOString(),
      startedAt: action.takenAt.toISOString(),
      status: await runStatus(
        client,
        action.action.workflow.workflowId,
        action.action.workflow.firstExecutionRunId,
      ),
    })),
  );
  const input = description.action.args?.[0] as Partial<RunbookWorkflowInput> | undefined;
  return {
    name,
    runbook: memo?.runbook ?? input?.definition?.name ?? null,
    file: memo?.file ?? null,
    when: whenText(description.spec, memo),
    cron: memo?.cron ?? null,
    every: memo?.every ?? null,
    timezone: memo?.timezone ?? description.spec.timezone ?? null,
    taskQueue: description.action.taskQueue ?? null,
    overlap: overlapName(description.policies.overlap),
    catchupWindow: formatRunbookDuration(description.policies.catchupWindow),
    pauseOnFailure: description.policies.pauseOnFailure,
    onFailure: input?.onFailure ?? null,
    paused: description.state.paused,
    note: description.state.note ?? null,
    inputs: maskedInputs(description, memo),
    nextRuns: description.info.nextActionTimes.slice(0, 5).map((time) => time.toISOString()),
    recentRuns,
    runningRuns: description.info.runningActions.map((action) => ({
      workflowId: action.workflow.workflowId,
      runId: action.workflow.firstExecutionRunId,
    })),
    actionsTaken: description.info.numActionsTaken,
    missedCatchupWindow: description.info.numActionsMissedCatchupWindow,
    skippedOverlap: description.info.numActionsSkippedOverlap,
    createdAt: description.info.createdAt.toISOString(),
    updatedAt: description.info.lastUpdatedAt?.toISOString() ?? null,
  };
}

export function listItemJson(summary: ScheduleSummary): ScheduleListItemJson {
  const memo = memoOf(summary.memo);
  const last = summary.info.recentActions.at(-1);
  return {
    name: summary.scheduleId,
    runbook: memo?.runbook ?? null,
    when: whenText(summary.spec, memo),
    paused: summary.state.paused,
    note: summary.state.note ?? null,
    nextRun: summary.info.nextActionTimes[0]?.toISOString() ?? null,
    lastRun: last
      ? { workflowId: last.action.workflow.workflowId, startedAt: last.takenAt.toISOString() }
      : null,
  };
}

export function renderSchedule(schedule: ScheduleJson): string {
  const lines = [
    `schedule ${schedule.name}${schedule.paused ? '  [paused]' : ''}`,
    `  runbook         ${schedule.runbook ?? '-'}${schedule.file ? `  (from ${schedule.file}, pinned at creation)` : ''}`,
    `  when            ${schedule.when}`,
    `  task queue      ${schedule.taskQueue ?? '-'}`,
    `  overlap         ${schedule.overlap}; catch-up window ${schedule.catchupWindow}${schedule.pauseOnFailure ? '; pauses on failure' : ''}${schedule.onFailure !== null ? `; on failure: ${schedule.onFailure}` : ''}`,
  ];
  if (schedule.note) lines.push(`  note            ${schedule.note}`);
  const inputs = Object.entries(schedule.inputs);
  if (inputs.length > 0) {
    lines.push('  inputs');
    for (const [name, value] of inputs)
      lines.push(`    ${name} = ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  lines.push(
    `  next runs       ${schedule.paused ? '(paused)' : schedule.nextRuns.slice(0, 3).join(', ') || '-'}`,
  );
  lines.push(
    `  runs so far     ${schedule.actionsTaken} started, ${schedule.skippedOverlap} skipped (overlap), ${schedule.missedCatchupWindow} missed (catch-up window)`,
  );
  if (schedule.recentRuns.length > 0) {
    lines.push('  recent runs');
    for (const run of [...schedule.recentRuns].reverse()) {
      lines.push(`    ${run.startedAt}  ${run.workflowId}  ${run.status ?? 'unknown'}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function renderScheduleList(items: ScheduleListItemJson[]): string {
  if (items.length === 0) return 'no schedules (create one with `tideline schedule create`)\n';
  const rows = [
    ['NAME', 'RUNBOOK', 'WHEN', 'NEXT RUN', 'STATE'],
    ...items.map((item) => [
      item.name,
      item.runbook ?? '-',
      item.when,
      item.paused ? '-' : (item.nextRun ?? '-'),
      item.paused ? `paused${item.note ? ` (${item.note})` : ''}` : 'active',
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return `${rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ')).join('\n')}\n`;
}
