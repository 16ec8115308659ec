// The tool answers about runs as text: a run's state and the runs waiting for approval, each with
// who must approve and the command a person approves with (agents never approve).
import type { PendingApproval } from '../contract/run-messages';
import type { RunState, WaitingApproval } from './runs';
import { printableDeep } from '../cloud/printable';

function approverLine(runId: string, approval: PendingApproval): string {
  const who =
    approval.approvers === undefined
      ? 'anyone (unsigned)'
      : `${approval.minApprovals ?? 1} of ${approval.approvers.join(', ')}${approval.approvedBy?.length ? ` (approved so far: ${approval.approvedBy.join(', ')})` : ''}`;
  const approve = `tideline approve ${runId} --step ${approval.stepKey} --by NAME`;
  const how =
    approval.plan === undefined
      ? `a person approves with: ${approve}`
      : `a person reads the plan and its fingerprint with: ${approve}\n  then approves that plan with: ${approve} --plan FINGERPRINT`;
  return `waiting for approval at ${approval.stepKey}: ${approval.message}\n  who: ${who}\n  ${how}`;
}

// A run's names, messages, errors and outputs are outside text: each answer is built from an
// escaped copy (cloud/printable.ts), as the CLI's views are.

export function runStateText(raw: RunState): string {
  const state = printableDeep(raw);
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

export function waitingText(raw: readonly WaitingApproval[]): string {
  if (raw.length === 0) return 'no run is waiting for approval';
  return printableDeep(raw)
    .map(({ runId, runbook, approval }) => `${runId} (${runbook})\n${approverLine(runId, approval)}`)
    .join('\n\n');
}
