// Two ways to show a run while it goes: on a terminal, a step list redrawn in place a few times a
// second; anywhere else (pipes, CI logs), one plain line per change, stamped with the time the
// change happened. Both take RunSnapshots.
import { printable, printableDeep } from '../../cloud/printable';
import type { StepRecord } from '../../contract/run-messages';
import type { CliContext } from '../context';
import type { RunSnapshot } from '../run-observer';
import { orderedSteps, stepDepth } from '../run-observer';
import { lockedAt } from '../run-watch';
import { approvalLines } from './run-report';
import { stepDetail, stepElapsed, stepError, stepLabel, stepRow, stepState } from './step-view';
import { formatClock, formatDuration, truncate, wrap, type Style } from './style';

export interface ProgressView {
  update(snapshot: RunSnapshot, now: number): void;
  /** Leaves the last frame still (no spinner); later output goes below it. */
  stop(): void;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Whether the run is over, so that steps still pending will never run. */
export function runEnded(snapshot: RunSnapshot): boolean {
  const status = snapshot.progress?.status;
  return (
    snapshot.closed ||
    snapshot.progress?.endedAt !== undefined ||
    status === 'succeeded' ||
    status === 'failed' ||
    status === 'cancelled'
  );
}

/** What the run as a whole waits for before its steps can go on, or ''. */
export function runWaitsFor(snapshot: RunSnapshot): string {
  if (runEnded(snapshot)) return '';
  const lock = snapshot.progress?.waitingForLock;
  if (lock !== undefined) return `waiting for lock ${lock}`;
  const window = snapshot.progress?.windowWait;
  if (window !== undefined)
    return `${printable(window.stepKey)} waits for change window ${printable(window.calendar)} (policy ${printable(window.rule)}) until ${new Date(window.until).toISOString()}`;
  return '';
}

/** Undo steps appear only once a run compensates; the column fits the others so rows never shift. */
function keyWidth(steps: StepRecord[]): number {
  const regular = steps.filter((step) => !step.key.includes('/undo.'));
  return Math.min(32, Math.max(16, ...regular.map((s) => stepLabel(s).length + 2 * stepDepth(s.key))));
}

/** The step list, redrawn in place (cursor up + clear) on every update. */
export class LiveProgressView implements ProgressView {
  private drawn = 0;
  private tick = 0;
  /** The last frame drawn, while it shows a spinner (stop() redraws it still). */
  private spinning: { snapshot: RunSnapshot; now: number } | undefined;

  constructor(
    private readonly ctx: Pick<CliContext, 'stdout' | 'globals'>,
    private readonly style: Style,
  ) {}

  /** `still`: the last frame, left on screen when the CLI stops watching (no spinner). */
  frame(raw: RunSnapshot, now: number, still = false): string[] {
    const { style } = this;
    // Step keys, names, messages and the runbook's name are outside text (printable.ts).
    const snapshot = printableDeep(raw);
    const progress = snapshot.progress;
    const ended = runEnded(snapshot);
    const status = progress?.status ?? (snapshot.closed ? 'ended' : 'starting');
    const elapsed = progress ? ` · ${formatDuration((progress.endedAt ?? now) - progress.startedAt)}` : '';
    const waits = runWaitsFor(snapshot);
    const spin = ended || still ? ' ' : style.cyan(SPINNER[this.tick++ % SPINNER.length] ?? '·');
    const lines = [
      // What the run waits for comes before its id, so a narrow terminal cuts the id first.
      `${spin} ${style.bold(progress?.runbook ?? snapshot.workflowId)} · ${status}${elapsed}${waits ? ` · ${style.yellow(waits)}` : ''} · run ${snapshot.workflowId}`,
    ];
    // Lines must not wrap, or the redraw would move the wrong number of lines up.
    const columns = this.ctx.stdout.columns;
    const width = columns !== undefined && columns > 20 ? columns - 1 : 120;
    const steps = orderedSteps(progress?.steps ?? []);
    const column = keyWidth(steps);
    for (const step of steps) {
      const activity = snapshot.activities[step.key];
      const layout = { keyWidth: column, indent: stepDepth(step.key), runEnded: ended };
      const child = snapshot.childRuns?.[step.key];
      lines.push(
        stepRow(step, activity, now, style, child === undefined ? layout : { ...layout, childRun: child }),
      );
      // Why a step failed is read whole: it goes under the row, wrapped instead of cut.
      const error = stepError(step);
      const indent = ' '.repeat(6 + 2 * stepDepth(step.key));
      if (error) lines.push(...wrap(`${indent}${error}`, width, indent).map((line) => style.red(line)));
    }
    if (progress?.pendingApproval) {
      lines.push(...approvalLines(this.ctx, snapshot.workflowId, progress.pendingApproval, style, now));
    }
    if (snapshot.note) lines.push(`  ${style.yellow('!')} ${snapshot.note}`);
    return lines.map((line) => truncate(line, width));
  }

  update(snapshot: RunSnapshot, now: number): void {
    this.draw(this.frame(snapshot, now));
    this.spinning = runEnded(snapshot) ? undefined : { snapshot, now };
  }

  stop(): void {
    // Redrawn without the spinner: a frame left behind must not look as if it were still live.
    if (this.spinning !== undefined && this.drawn > 0)
      this.draw(this.frame(this.spinning.snapshot, this.spinning.now, true));
    this.drawn = 0;
    this.spinning = undefined;
  }

  private draw(lines: string[]): void {
    const clear = this.drawn > 0 ? `\r\u001b[${this.drawn}A\u001b[J` : '';
    this.ctx.stdout.write(`${clear}${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}

/** A wait that goes on is logged again this often (when it polled since), so a log stays current. */
const WAIT_REFRESH_MS = 30_000;

/** States a step only reaches after it was done: a first look at a finished run still logs `done`. */
const AFTER_DONE = new Set(['compensating', 'compensated', 'compensation-failed']);

/** When the run got `key`: as it recorded it, else its first step's start (it starts once locked). */
function lockAcquiredAt(snapshot: RunSnapshot, key: string): number | undefined {
  const recorded = snapshot.progress?.lockWaits?.find((wait) => wait.key === key)?.acquiredAt;
  return recorded ?? lockedAt({ steps: snapshot.progress?.steps ?? [] });
}

/** One line per change of a step (state, a wait's last seen status, a retry), for logs. */
export class LineProgressView implements ProgressView {
  private readonly seen = new Map<string, { signature: string; state: string; polls?: number; at: number }>();
  private lastApproval = '';
  private lastNote = '';
  private lastWait = '';
  /** The lock the run was last seen queued on. */
  private lastLock: string | undefined;

  constructor(
    private readonly ctx: Pick<CliContext, 'stdout' | 'globals'>,
    private readonly style: Style,
  ) {}

  update(raw: RunSnapshot, now: number): void {
    const snapshot = printableDeep(raw);
    const changes: { at: number; line: string }[] = [];
    const log = (at: number, line: string): void =>
      void changes.push({ at, line: `${formatClock(at)} ${line}` });
    const ended = runEnded(snapshot);
    const waits = runWaitsFor(snapshot);
    if (waits !== this.lastWait) {
      const lock = snapshot.progress?.waitingForLock;
      if (this.lastLock !== undefined && this.lastLock !== lock) {
        // A run seen ended says it got the lock only when it recorded so (or a step started).
        const acquired = lockAcquiredAt(snapshot, this.lastLock) ?? (ended ? undefined : now);
        if (acquired !== undefined) log(acquired, `lock ${this.lastLock} acquired`);
      }
      if (waits) log(now, waits);
      this.lastWait = waits;
      this.lastLock = ended ? undefined : lock;
    }
    for (const step of orderedSteps(snapshot.progress?.steps ?? [])) {
      const state = stepState(step, ended);
      if (state === 'pending') continue;
      const activity = snapshot.activities[step.key];
      const child = snapshot.childRuns?.[step.key];
      const signature = [
        state,
        child ?? '',
        activity?.lastStatus ?? '',
        activity?.attempt ?? '',
        activity?.lastError ?? '',
      ].join('|');
      const before = this.seen.get(step.key);
      const refresh =
        before?.signature === signature &&
        activity?.polls !== before.polls &&
        now - before.at >= WAIT_REFRESH_MS;
      if (before?.signature === signature && !refresh) continue;
      this.seen.set(step.key, { signature, state, polls: activity?.polls, at: now });
      // A step done between two looks (or before the first) and now being undone was done first.
      const doneUnseen = before === undefined || (before.state !== 'done' && !AFTER_DONE.has(before.state));
      if (
        doneUnseen &&
        AFTER_DONE.has(state) &&
        step.compensates === undefined &&
        step.startedAt !== undefined
      )
        log(Math.max(step.startedAt, before?.at ?? 0), `${step.key} done`);
      const elapsed = stepElapsed(step, now);
      const took = state !== 'running' && elapsed !== undefined ? ` in ${formatDuration(elapsed)}` : '';
      const detail = stepDetail(step, activity, child, now);
      const name = state === 'running' && step.name ? ` (${step.name})` : '';
      // Each line carries the time its change happened, so a finished run reads as it went.
      const at = refresh
        ? now
        : state === 'running'
          ? (step.startedAt ?? now)
          : (step.endedAt ?? snapshot.progress?.endedAt ?? now);
      log(at, `${step.key} ${state}${took}${name}${detail ? ` · ${detail}` : ''}`);
    }
    const out = changes.sort((a, b) => a.at - b.at).map((change) => change.line);
    const stamp = formatClock(now);
    const pending = snapshot.progress?.pendingApproval;
    const approvalKey = pending ? `${pending.stepKey}` : '';
    if (pending && approvalKey !== this.lastApproval) {
      out.push(
        ...approvalLines(this.ctx, snapshot.workflowId, pending, this.style, now).map(
          (line) => `${stamp}${line}`,
        ),
      );
    }
    this.lastApproval = approvalKey;
    if (snapshot.note && snapshot.note !== this.lastNote) out.push(`${stamp} note: ${snapshot.note}`);
    this.lastNote = snapshot.note ?? '';
    if (out.length > 0) this.ctx.stdout.write(`${out.join('\n')}\n`);
  }

  stop(): void {
    // Nothing to restore: every line is final.
  }
}
