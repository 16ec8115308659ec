// A held run as people read it: each held step with its error, when the run rolls back on its
// own, the three exact commands that act on it, and what operators did so far.
import type { RunProgress } from '../../contract/run-messages';
import type { CliContext } from '../context';
import { printableDeep } from '../../cloud/printable';
import { actionLine, cliCommand } from './run-report';
import { formatDuration, isoTime, type Style } from './style';

export function heldLines(
  ctx: Pick<CliContext, 'globals'>,
  workflowId: string,
  progress: RunProgress,
  style: Style,
  now: number,
): string[] {
  const lines: string[] = [];
  for (const raw of progress.held ?? []) {
    const held = printableDeep(raw);
    const left = formatDuration(Math.max(0, held.deadline - now));
    lines.push(
      `  ${style.yellow('⏸')} held at step ${style.bold(held.stepKey)}: ${held.error.type}: ${held.error.message}`,
      `    nothing was rolled back yet; the run rolls back on its own in ${left} (${isoTime(held.deadline) ?? ''})`,
      `    retry:    ${cliCommand(ctx, ['retry', workflowId, '--step', raw.stepKey])}  (change inputs with -i key=value)`,
      `    skip:     ${cliCommand(ctx, ['skip', workflowId, '--step', raw.stepKey, '--output', '{}'])}  (the output later steps read)`,
      `    rollback: ${cliCommand(ctx, ['rollback', workflowId])}`,
    );
  }
  const actions = progress.actions ?? [];
  if (actions.length > 0) {
    lines.push('  operator actions:');
    for (const action of actions) lines.push(`    ${actionLine(action)}`);
  }
  return lines;
}
