// How one step of a run reads: a symbol, its state, elapsed time, and what it is doing (the status
// a wait last saw and how often it polled, a call's retry attempt, a child runbook's run, why a
// step failed). Shared by the live view, the plain line log, the final report and `history`.
import type { StepRecord, StepStatus } from '../../contract/run-messages';
import type { ActivityState } from '../run-observer';
import { STEP_KIND_SCHEMAS, type StepKind } from '../../dsl/schema';
import { STEP_KIND_VIEWS, type StepKindViews } from '../plan/step-kind-views';
import { printable } from '../../cloud/printable';
import { formatDuration, truncate, type Style } from './style';

/** What a step's row says for its state: a step still pending when the run ended never ran. */
export type StepState = StepStatus | 'not run';

export function stepState(step: StepRecord, runEnded: boolean): StepState {
  return runEnded && step.status === 'pending' ? 'not run' : step.status;
}

export function stepSymbol(status: StepState, style: Style): string {
  switch (status) {
    case 'pending':
    case 'not run':
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

export function statusColour(status: StepState, style: Style): (text: string) => string {
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

/** A status seen this long without change is worth saying (`last seen UNSTABLE for 1m02s`). */
const SAME_STATUS_NOTE_MS = 10_000;
/** Heartbeats reach Temporal throttled; older details say how old they are. */
const STALE_HEARTBEAT_MS = 3_000;

/**
 * What a running wait saw last and how often it polled, then what it waits for. The condition
 * comes last: when a row is cut at the terminal's width, it is the part that goes.
 */
export function waitDetail(step: StepRecord, activity: ActivityState | undefined, now: number): string {
  const parts: string[] = [];
  if (activity?.lastStatus) {
    const since = activity.lastStatusSince;
    const held =
      since !== undefined && now - since >= SAME_STATUS_NOTE_MS ? ` for ${formatDuration(now - since)}` : '';
    parts.push(`last seen ${activity.lastStatus}${held}`);
  }
  if (activity?.polls !== undefined) parts.push(`${activity.polls} poll${activity.polls === 1 ? '' : 's'}`);
  // A wait's first heartbeat (what it saw, its polls) comes ~12 s into an attempt: say none came yet
  // rather than show nothing, which reads as if it had not polled.
  else if (activity?.lastStatus === undefined) parts.push('no poll reported yet');
  if (activity?.heartbeatAt !== undefined && now - activity.heartbeatAt >= STALE_HEARTBEAT_MS)
    parts.push(`as of ${formatDuration(now - activity.heartbeatAt)} ago`);
  if (activity?.lastError) parts.push(`last error ${activity.lastError}`);
  if (step.waitingFor) parts.push(`waiting for ${step.waitingFor.replace(/\s+/g, ' ')}`);
  return parts.join(' · ');
}

/**
 * Why a step failed (or its compensation did), or '' when it did not. Escaped (printable.ts): an
 * approval step's rejection quotes the rejecter's name and comment, which anyone reaching Temporal
 * can set.
 */
export function stepError(step: StepRecord): string {
  if (!step.error || (step.status !== 'failed' && step.status !== 'compensation-failed')) return '';
  return printable(`${step.error.type}: ${step.error.message}`);
}

/** What `tideline status` shows of a running step of this kind (a record's kind is a string). */
function runningView(kind: string): StepKindViews<StepKind>['whileRunning'] {
  return Object.hasOwn(STEP_KIND_SCHEMAS, kind) ? STEP_KIND_VIEWS[kind as StepKind].whileRunning : 'nothing';
}

/** What a running step is doing (a wait's last answer, a child run, a retry), or ''. */
export function stepActivity(
  step: StepRecord,
  activity: ActivityState | undefined,
  childRun?: string,
  now = Date.now(),
): string {
  const parts: string[] = [];
  const whileRunning = step.status === 'running' ? runningView(step.kind) : 'nothing';
  if (whileRunning === 'polls') parts.push(waitDetail(step, activity, now));
  if (childRun !== undefined && (whileRunning === 'batch run' || whileRunning === 'child run'))
    parts.push(`${whileRunning} ${childRun}`);
  if (step.status === 'running' && activity && activity.attempt > 1) {
    parts.push(
      `attempt ${activity.attempt}${activity.lastFailure ? ` (last: ${activity.lastFailure})` : ''}`,
    );
  }
  if (step.compensates !== undefined && step.status === 'pending') parts.push(`undoes ${step.compensates}`);
  return parts.filter((part) => part !== '').join(' · ');
}

/** One line of extra information about a step (what it does, why it failed), or ''. */
export function stepDetail(
  step: StepRecord,
  activity: ActivityState | undefined,
  childRun?: string,
  now = Date.now(),
): string {
  return [stepActivity(step, activity, childRun, now), stepError(step)]
    .filter((part) => part !== '')
    .join(' · ');
}

/** How a step is named in a row: its key, or for an undo step `undo.<its id>` under the step it undoes. */
export function stepLabel(step: StepRecord): string {
  const undo = step.key.lastIndexOf('/undo.');
  return undo < 0 ? step.key : `undo.${step.key.slice(undo + '/undo.'.length)}`;
}

export interface RowLayout {
  /** Width of the step column; longer labels are cut, so rows never shift. */
  keyWidth: number;
  indent: number;
  /** The run has ended: pending steps read `not run`. */
  runEnded: boolean;
  childRun?: string;
}

/** The live/report row: `  ✓ create  done  1.2s  Create the service · detail` (errors go below). */
export function stepRow(
  step: StepRecord,
  activity: ActivityState | undefined,
  now: number,
  style: Style,
  layout: RowLayout,
): string {
  const state = stepState(step, layout.runEnded);
  const elapsed = stepElapsed(step, now);
  const name = step.name ? style.dim(step.name) : '';
  const detail = stepActivity(step, activity, layout.childRun, now);
  // What a running step does now leads, so a row cut at the terminal's width keeps it.
  const tail = [detail, name].filter((part) => part !== '').join(style.dim(' · '));
  const label = `${'  '.repeat(layout.indent)}${stepLabel(step)}`;
  const key = truncate(label, layout.keyWidth).padEnd(layout.keyWidth);
  const status = statusColour(state, style)(state.padEnd(19));
  const time = (elapsed === undefined ? '' : formatDuration(elapsed)).padStart(7);
  return `  ${stepSymbol(state, style)} ${key}  ${status} ${time}  ${tail}`.trimEnd();
}
