// Two ways to show a run while it goes: on a terminal, a step list redrawn in place a few times a
// second; anywhere else (pipes, CI logs), one plain line per change. Both take RunSnapshots.
import type { CliContext } from '../context';
import type { RunSnapshot } from '../run-observer';
import { orderedSteps, stepDepth } from '../run-observer';
import { approvalLines } from './run-report';
import { stepDetail, stepElapsed, stepRow } from './step-view';
import { formatClock, formatDuration, truncate, type Style } from './style';

export interface ProgressView {
  update(snapshot: RunSnapshot, now: number): void;
  /** Leaves the last frame as it is; later output goes below it. */
  stop(): void;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The step list, redrawn in place (cursor up + clear) on every update. */
export class LiveProgressView implements ProgressView {
  private drawn = 0;
  private tick = 0;

  constructor(
    private readonly ctx: Pick<CliContext, 'stdout' | 'globals'>,
    private readonly style: Style,
  ) {}

  frame(snapshot: RunSnapshot, now: number): string[] {
    const { style } = this;
    const progress = snapshot.progress;
    const status = progress?.status ?? (snapshot.closed ? 'ended' : 'starting');
    const elapsed = progress ? ` · ${formatDuration((progress.endedAt ?? now) - progress.startedAt)}` : '';
    const spin = snapshot.closed ? ' ' : style.cyan(SPINNER[this.tick++ % SPINNER.length] ?? '·');
    const lines = [
      `${spin} ${style.bold(progress?.runbook ?? snapshot.workflowId)} · run ${snapshot.workflowId} · ${status}${elapsed}`,
    ];
    const steps = orderedSteps(progress?.steps ?? []);
    const keyWidth = Math.min(32, Math.max(8, ...steps.map((s) => s.key.length + 2 * stepDepth(s.key))));
    for (const step of steps) {
      const activity = snapshot.activities[step.key];
      const child = snapshot.childRuns?.[step.key];
      lines.push(stepRow(step, activity, now, style, keyWidth, stepDepth(step.key), child));
    }
    if (progress?.pendingApproval) {
      lines.push(...approvalLines(this.ctx, snapshot.workflowId, progress.pendingApproval, style, now));
    }
    if (snapshot.note) lines.push(`  ${style.yellow('!')} ${snapshot.note}`);
    // Lines must not wrap, or the redraw would move the wrong number of lines up.
    const columns = this.ctx.stdout.columns;
    const width = columns !== undefined && columns > 20 ? columns - 1 : 120;
    return lines.map((line) => truncate(line, width));
  }

  update(snapshot: RunSnapshot, now: number): void {
    const lines = this.frame(snapshot, now);
    const clear = this.drawn > 0 ? `\r\u001b[${this.drawn}A\u001b[J` : '';
    this.ctx.stdout.write(`${clear}${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }

  stop(): void {
    this.drawn = 0;
  }
}

/** One line per change of a step (state, a wait's last seen status, a retry), for logs. */
export class LineProgressView implements ProgressView {
  private readonly seen = new Map<string, string>();
  private lastApproval = '';
  private lastNote = '';

  constructor(
    private readonly ctx: Pick<CliContext, 'stdout' | 'globals'>,
    private readonly style: Style,
  ) {}

  update(snapshot: RunSnapshot, now: number): void {
    const changes: { at: number; line: string }[] = [];
    const stamp = formatClock(now);
    for (const step of orderedSteps(snapshot.progress?.steps ?? [])) {
      if (step.status === 'pending') continue;
      const activity = snapshot.activities[step.key];
      const child = snapshot.childRuns?.[step.key];
      const signature = [
        step.status,
        child ?? '',
        activity?.lastStatus ?? '',
        activity?.attempt ?? '',
        activity?.lastError ?? '',
      ].join('|');
      if (this.seen.get(step.key) === signature) continue;
      this.seen.set(step.key, signature);
      const elapsed = stepElapsed(step, now);
      const took = step.status !== 'running' && elapsed !== undefined ? ` in ${formatDuration(elapsed)}` : '';
      const detail = stepDetail(step, activity, child);
      const name = step.status === 'running' && step.name ? ` (${step.name})` : '';
      // Several changes seen at once are logged in the order they happened.
      const at = step.status === 'running' ? (step.startedAt ?? now) : (step.endedAt ?? now);
      changes.push({
        at,
        line: `${stamp} ${step.key} ${step.status}${took}${name}${detail ? ` · ${detail}` : ''}`,
      });
    }
    const out = changes.sort((a, b) => a.at - b.at).map((change) => change.line);
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
