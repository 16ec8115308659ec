// The plan an approval guards, as an approver reads it before signing: each change the run will
// make after the step, with its target values. Values come from the run (attacker-reachable), so
// they are printed escaped.
import type { ApprovalPlan } from '../../contract/approval-messages';
import { planFingerprint } from '../../activities/approval-signatures';
import { printableDeep } from '../../cloud/printable';

/** The plan's lines, headed by the step and the plan's fingerprint (the one `--plan` takes). */
export function planText(rawStepKey: string, raw: ApprovalPlan): string {
  const fingerprint = planFingerprint(raw);
  const { stepKey, plan } = printableDeep({ stepKey: rawStepKey, plan: raw });
  const lines = [`step ${stepKey} guards these changes (definition ${plan.definitionHash.slice(0, 12)}):`];
  if (plan.changes.length === 0) lines.push('  (no changing step follows it)');
  for (const change of plan.changes) {
    const fields = Object.entries(change.with)
      .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');
    lines.push(`  ${change.stepKey}: ${change.action} ${fields}`);
  }
  lines.push(`plan fingerprint: ${fingerprint}`);
  return `${lines.join('\n')}\n`;
}
