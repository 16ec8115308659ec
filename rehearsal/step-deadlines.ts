// A case's deadlines that follow the runbook's own: each step with a time limit (a wait's
// `timeout`, an approval's, any step's `timeout`) must end within that limit as the case's clock
// counts it. The case's cloud runs at CASE_TIME_SCALE of real time, so a wait that may take 30
// minutes against the real cloud has 18 seconds here; a run still in such a step after its
// deadline would, on the case's clock, have timed out, and the case ends there with what its
// expectations find at that moment — in seconds, rather than at the flat case timeout.
import type { RunProgress } from '../contract/run-messages';
import type { RunbookDefinition } from '../dsl/definition';
import { formatDuration, parseDuration } from '../dsl/durations';
import { stepTree } from '../dsl/step-tree';
import { resolveDurationMs } from '../dsl/templates';
import { CASE_TIME_SCALE } from './case-cloud';

/**
 * Real time a step gets beyond its scaled limit: the first polls of a wait, an activity's start,
 * the workflow's own turns. A correct run's steps end far within it on the case's cloud.
 */
export const STEP_DEADLINE_SLACK_MS = 3_000;

export interface StepDeadline {
  /** The step's own limit, as the runbook gives it. */
  limitMs: number;
  /** How long (real time) it may run in the case. */
  budgetMs: number;
}

/** A step that ran past its deadline: which one, and its limits. */
export interface MissedDeadline extends StepDeadline {
  stepKey: string;
}

/**
 * Each step's deadline by step id. A limit written as a template is resolved with the run's
 * inputs; one that reads more than the inputs has none here (the flat case timeout still holds).
 * A scripted decision `after` a while extends its approval's budget by that while.
 */
export function stepDeadlines(
  definition: RunbookDefinition,
  inputs: Record<string, unknown>,
  approvals: readonly { step: string; after?: string | undefined }[] = [],
): Map<string, StepDeadline> {
  const deadlines = new Map<string, StepDeadline>();
  for (const { step } of stepTree(definition.steps)) {
    if (step.timeoutMs === undefined) continue;
    let limitMs: number;
    try {
      limitMs = resolveDurationMs(step.timeoutMs, { inputs });
    } catch {
      continue;
    }
    const answeredAfter = Math.max(
      0,
      ...approvals
        .filter((approval) => approval.step === step.id && approval.after !== undefined)
        .map((approval) => parseDuration(approval.after ?? '0s')),
    );
    deadlines.set(step.id, {
      limitMs,
      budgetMs: Math.ceil(limitMs * CASE_TIME_SCALE) + answeredAfter + STEP_DEADLINE_SLACK_MS,
    });
  }
  return deadlines;
}

/** The first running step of `progress` that has been running longer than its budget. */
export function missedDeadline(
  progress: RunProgress | undefined,
  deadlines: ReadonlyMap<string, StepDeadline>,
  now: number,
): MissedDeadline | undefined {
  for (const record of progress?.steps ?? []) {
    if (record.status !== 'running' || record.startedAt === undefined) continue;
    const deadline = deadlines.get(record.id);
    if (deadline !== undefined && now - record.startedAt > deadline.budgetMs)
      return { stepKey: record.key, ...deadline };
  }
  return undefined;
}

export function missedDeadlineText(missed: MissedDeadline): string {
  return `step ${missed.stepKey} ran past its timeout of ${formatDuration(missed.limitMs)} on the case's clock (${formatDuration(missed.budgetMs)} here)`;
}
