// A run's per-step timeline: the interpreter's step records (what ran, when, how it ended) joined
// with the activity attempts from Temporal's event history (how many tries each call or wait
// took, and the last failure). The event history does not say which step scheduled an activity,
// so activities are matched to steps by action and time (a step's activity is scheduled between
// the step's start and end).
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every SDK module */
import type { temporal } from '@temporalio/proto';
import type { LoadedDataConverter } from '@temporalio/common';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import type { RunbookWorkflowInput, StepRecord } from '../workflows/messages';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const WAIT_ACTIVITY = 'wait.until';
/** Clock tolerance between the workflow's step times and the server's event times. */
const SLACK_MS = 1_000;

export interface ActivityRun {
  activityId: string;
  type: string;
  scheduledAt: number;
  endedAt?: number;
  /** How many attempts ran (1 when it worked the first time). */
  attempts: number;
  outcome: 'completed' | 'failed' | 'timed-out' | 'cancelled' | 'running';
  failure?: string;
}

export interface TimelineStep extends StepRecord {
  /** What the step's activity type is (an action, or `wait.until`), for call and wait steps. */
  activityType?: string;
  attempts?: number;
  activity?: ActivityRun;
}

function millis(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!time) return 0;
  const raw = time.seconds as number | { toNumber(): number } | null | undefined;
  const seconds = typeof raw === 'number' ? raw : raw ? raw.toNumber() : 0;
  return seconds * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}

function idOf(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** Every activity of the history with its attempts and outcome, in scheduling order. */
export async function activityRuns(
  events: HistoryEvent[],
  converter: LoadedDataConverter,
): Promise<ActivityRun[]> {
  const { decodeOptionalFailureToOptionalError } =
    require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
  const byEventId = new Map<string, ActivityRun>();
  const runs: ActivityRun[] = [];
  for (const event of events) {
    const at = millis(event.eventTime);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const run: ActivityRun = {
        activityId: scheduled.activityId ?? '',
        type: scheduled.activityType?.name ?? '',
        scheduledAt: at,
        attempts: 0,
        outcome: 'running',
      };
      byEventId.set(idOf(event.eventId), run);
      runs.push(run);
      continue;
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const run = byEventId.get(idOf(started.scheduledEventId));
      if (run) run.attempts = started.attempt ?? 1;
      continue;
    }
    const ends: [unknown, ActivityRun['outcome']][] = [
      [event.activityTaskCompletedEventAttributes, 'completed'],
      [event.activityTaskFailedEventAttributes, 'failed'],
      [event.activityTaskTimedOutEventAttributes, 'timed-out'],
      [event.activityTaskCanceledEventAttributes, 'cancelled'],
    ];
    for (const [attributes, outcome] of ends) {
      if (!attributes) continue;
      const typed = attributes as {
        scheduledEventId?: unknown;
        failure?: temporal.api.failure.v1.IFailure | null;
      };
      const run = byEventId.get(idOf(typed.scheduledEventId));
      if (!run) continue;
      run.outcome = outcome;
      run.endedAt = at;
      if (typed.failure) {
        try {
          const error = await decodeOptionalFailureToOptionalError(converter, typed.failure);
          if (error) {
            const cause = (error.cause as { message?: string } | undefined)?.message;
            run.failure = cause ? `${error.message}: ${cause}` : error.message;
          }
        } catch {
          run.failure = 'failure details could not be decrypted';
        }
      }
    }
  }
  return runs;
}

/** The run's definition, from the input of its first event (decrypted with the shared keys). */
export async function runDefinition(
  events: HistoryEvent[],
  converter: LoadedDataConverter,
): Promise<RunbookDefinition | undefined> {
  const { decodeArrayFromPayloads } =
    require('@temporalio/common/lib/internal-non-workflow') as typeof import('@temporalio/common/lib/internal-non-workflow');
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (!started) return undefined;
  const [input] = await decodeArrayFromPayloads(converter, started.input?.payloads);
  return (input as RunbookWorkflowInput | undefined)?.definition;
}

/** Step id → the activity type its executions schedule (call: its action, wait: `wait.until`). */
export function activityTypes(definition: RunbookDefinition | undefined): Map<string, string> {
  const types = new Map<string, string>();
  const visit = (steps: StepDefinition[]): void => {
    for (const step of steps) {
      if (step.kind === 'call') types.set(step.id, step.action);
      if (step.kind === 'wait') types.set(step.id, WAIT_ACTIVITY);
      if (step.kind === 'parallel') for (const branch of step.branches) visit(branch.steps);
      if (step.kind === 'foreach') visit(step.steps);
      visit(step.compensate);
    }
  };
  visit(definition?.steps ?? []);
  return types;
}

/** Joins the step records with their activities. */
export function buildTimeline(
  steps: StepRecord[],
  runs: ActivityRun[],
  types: Map<string, string>,
): TimelineStep[] {
  const used = new Set<ActivityRun>();
  const timeline = steps.map((step): TimelineStep => ({ ...step }));
  const started = timeline
    .filter((step) => step.startedAt !== undefined && (step.kind === 'call' || step.kind === 'wait'))
    .sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0));
  for (const step of started) {
    const type = types.get(step.id) ?? (step.kind === 'wait' ? WAIT_ACTIVITY : undefined);
    if (type !== undefined) step.activityType = type;
    const from = (step.startedAt ?? 0) - SLACK_MS;
    const to = (step.endedAt ?? Number.POSITIVE_INFINITY) + SLACK_MS;
    const match = runs.find(
      (run) =>
        !used.has(run) &&
        (type === undefined || run.type === type) &&
        run.scheduledAt >= from &&
        run.scheduledAt <= to,
    );
    if (!match) continue;
    used.add(match);
    step.activity = match;
    step.attempts = match.attempts;
  }
  return timeline;
}
