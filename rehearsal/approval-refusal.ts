// What a case says when its run refuses one of the case's scripted decisions: the step, who, the
// run's reason and code, and — when the decider is no approver the case's worker knows — how a case
// makes one (a person of its `people`, in a group the step lists, answering `by` them). Pure.
import type { ApprovalRefusalCode } from '../contract/approval-messages';

/** Refusals that mean the decider is not an approver the case's worker can verify. */
const NO_KNOWN_APPROVER: readonly ApprovalRefusalCode[] = [
  'APPROVAL_UNSIGNED',
  'APPROVAL_UNKNOWN_KEY',
  'APPROVAL_NOT_APPROVER',
];

const GROUP = 'group:';

/** A `people` entry and `by` that the step's approvers would count. */
function exampleApprover(approvers: readonly string[]): string {
  const group = approvers.find((entry) => entry.startsWith(GROUP));
  if (group !== undefined) return `people: { dave: { groups: [${group.slice(GROUP.length)}] } } and by: dave`;
  const name = approvers[0] ?? 'alice';
  return `people: { ${name}: {} } and by: ${name}`;
}

export function approvalRefusalText(
  index: number,
  approval: { step: string; decision: 'approve' | 'reject'; by: string },
  refused: { code: ApprovalRefusalCode; reason: string },
  approvers: readonly string[] | undefined,
): string {
  const what = approval.decision === 'approve' ? 'approval' : 'rejection';
  const text = `approvals[${index}]: the run refused ${approval.by}'s ${what} of ${approval.step}: ${refused.reason} (${refused.code})`;
  if (!NO_KNOWN_APPROVER.includes(refused.code) || approvers === undefined) return text;
  return `${text}; a decision on this step counts only signed by one of its approvers (${approvers.join(', ')}), whom the case's worker knows: e.g. ${exampleApprover(approvers)}`;
}
