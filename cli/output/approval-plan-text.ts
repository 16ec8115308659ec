// The plan an approval guards, as an approver reads it before signing: each change the run will
// make after the step, with its target values. Values come from the run (attacker-reachable), so
// they are printed escaped.
import type { ApprovalPlan } from '../../contract/approval-messages';
import { canonicalJson } from '../../contract/canonical-json';
import { printable } from './printable';
import { createHash } from 'node:crypto';

/** A short fingerprint of a plan, so two people can tell they approved the same one. */
export function planFingerprint(plan: ApprovalPlan): string {
  return createHash('sha256').update(canonicalJson(plan)).digest('hex').slice(0, 12);
}

export function planText(stepKey: string, plan: ApprovalPlan): string {
  const lines = [
    `step ${printable(stepKey)} guards these changes (definition ${plan.definitionHash.slice(0, 12)}, plan ${planFingerprint(plan)}):`,
  ];
  if (plan.changes.length === 0) lines.push('  (no changing step follows it)');
  for (const change of plan.changes) {
    const fields = Object.entries(change.with)
      .map(
        ([name, value]) => `${name}=${printable(typeof value === 'string' ? value : JSON.stringify(value))}`,
      )
      .join(' ');
    lines.push(`  ${printable(change.stepKey)}: ${printable(change.action)} ${fields}`);
  }
  return `${lines.join('\n')}\n`;
}
