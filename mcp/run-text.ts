// The tool answers about runs as text: a run's state and the runs waiting for approval, each with
// who must approve and the command a person approves with (agents never approve).
import type { PendingApproval } from '../contract/run-messages';
import type { RunState, WaitingApproval } from './runs';

function approverLine(runId: string, approval: PendingApproval): string {
  const who =
    approval.approvers === undefined
      ? 'anyone (unsigned)'
      : `${approval.minApprovals ?? 1} of ${approval.approvers.join(', ')}${approval.approvedBy?.length ? ` (approved so far: ${approval.approvedBy.join(', ')})` : ''}`;
  return `waiting for approval at ${approval.stepKey}: ${approval.message}\n  who: ${who}\n  a person approves with: tideline approve ${runId} --step ${approval.stepKey} --by NAME`;
}

export function runStateText(state: RunState): string {
  const lines = [
    `run ${state.runId} (${state.runbook}): ${state.status ?? state.execution.toLowerCase()}${state.startedBy !== undefined ? `, started by ${state.startedBy}` : ''}`,
  ];
  for (const step of state.steps)
    lines.push(`  ${step.key}: ${step.status}${step.error !== undefined ? ` — ${step.error}` : ''}`);
  if (state.pendingApproval !== undefined) lines.push(approverLine(state.runId, state.pendingApproval));
  if (state.failure !== undefined)
    lines.push(`failed at ${state.failure.stepKey}: ${state.failure.type}: ${state.failure.message}`);
  if (state.outputs !== undefined) {
    lines.push('outputs:');
    for (const [name, value] of Object.entries(state.outputs))
      lines.push(`  ${name}: ${JSON.stringify(value)}`);
  }
  return lines.join('\n');
}

export function waitingText(waiting: readonly WaitingApproval[]): string {
  if (waiting.length === 0) return 'no run is waiting for approval';
  return waiting
    .map(({ runId, runbook, approval }) => `${runId} (${runbook})\n${approverLine(runId, approval)}`)
    .join('\n\n');
}
