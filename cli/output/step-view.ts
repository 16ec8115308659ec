// How one step of a run reads: a symbol, its state, elapsed time, and what it is doing (what a
// wait waits for and the status it last saw, a call's retry attempt, a child runbook's run, why a
// step failed). Shared by the live view, the plain line log, the final report and `history`.
import type { StepRecord, StepStatus } from '../../workflows/messages';
import type { ActivityState } from '../run-observer';
import { formatDuration, type Style } from './style';

export function stepSymbol(status: StepStatus, style: Style): string {
  switch (status) {
    case 'pending':
      return style.dim('·');
    case 'running':
      return style.cyan('▸');
    case 'done':
      return style.green('✓');
    case 'failed':
      return style.red('✗');
    case 'skipped':
      return style.dim('↷');
    case 'compensating':
      return style.yellow('↺');
    case 'compensated':
      return style.yellow('↩');
    case 'compensation-failed':
      return style.red('✗');
  }
}

export function statusColour(status: StepStatus, style: Style): (text: string) => string {
  if (status === 'done') return style.green;
  if (status === 'failed' || status === 'compensation-failed') return style.red;
  if (status === 'running') return style.cyan;
  if (status === 'compensating' || status === 'compensated') return style.yellow;
  return style.dim;
}

/**
 * Milliseconds the step has taken so far (or took). Not for compensated steps: their end time is
 * when they were undone, which is no duration of the step.
 */
export function stepElapsed(step: StepRecord, now: number): number | undefined {
  if (step.startedAt === undefined) return undefined;
  if (step.status === 'running') return now - step.startedAt;
  if ((step.status === 'done' || step.status === 'failed') && step.endedAt !== undefined)
    return step.endedAt - step.startedAt;
  return undefined;
}

/** What a running wait is waiting for, and what it saw last. */
export function waitDetail(step: StepRecord, activity: ActivityState | undefined): string {
  const parts: string[] = [];
  if (step.waitingFor) parts.push(`waiting for ${step.waitingFor.replace(/\s+/g, ' ')}`);
  if (activity?.lastStatus) parts.push(`last seen ${activity.lastStatus}`);
  if (activity?.polls !== undefined) parts.push(`${activity.polls} poll${activity.polls === 1 ? '' : 's'}`);
  if (activity?.lastError) parts.push(`last error ${activity.lastError}`);
  return parts.join(' · ');
}

/** One line of extra information about a step, or '' when there is nothing to add. */
export function stepDetail(step: StepRecord, activity: ActivityState | undefined, childRun?: string): string {
  const parts: string[] = [];
  if (step.status === 'running' && step.kind === 'wait') parts.push(waitDetail(step, activity));
  if (step.status === 'running' && childRun !== undefined)
    parts.push(`${step.kind === 'foreach' ? 'batch' : 'child'} run ${childRun}`);
  if (step.status === 'running' && activity && activity.attempt > 1) {
    parts.push(
      `attempt ${activity.attempt}${activity.lastFailure ? ` (last: ${activity.lastFailure})` : ''}`,
    );
  }
  if (step.error && (step.status === 'failed' || step.status === 'compensation-failed')) {
    parts.push(`${step.error.type}: ${step.error.message}`);
  }
  if (step.compensates !== undefined && step.status === 'pending') parts.push(`undoes ${step.compensates}`);
  return parts.filter((part) => part !== '').join(' · ');
}

/** The live/report row: `  ✓ create  done  1.2s  Create the service · detail`. */
export function stepRow(
  step: StepRecord,
  activity: ActivityState | undefined,
  now: number,
  style: Style,
  keyWidth: number,
  indent: number,
  childRun?: string,
): string {
  const elapsed = stepElapsed(step, now);
  const name = step.name ? style.dim(step.name) : '';
  const detail = stepDetail(step, activity, childRun);
  const tail = [name, detail].filter((part) => part !== '').join(style.dim(' · '));
  const pad = '  '.repeat(indent);
  const key = `${pad}${step.key}`.padEnd(keyWidth);
  const status = statusColour(step.status, style)(step.status.padEnd(19));
  const time = (elapsed === undefined ? '' : formatDuration(elapsed)).padStart(7);
  return `  ${stepSymbol(step.status, style)} ${key}  ${status} ${time}  ${tail}`.trimEnd();
}
