// `tideline audit ID [--json]`: every decision sent to the run's approval steps that name
// approvers — who, with which key, approve or reject, when, and whether it was counted or why not —
// from the run's progress (a running run) or its report (an ended one).
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { auditLine } from '../output/run-report';
import { admissionLine, holdActionLine, policyLine } from '../output/audit-lines';
import { observeRun, readOutcome } from '../run-observer';
import { withTemporal, type TemporalSession } from '../temporal';
import type { Admission } from '../../contract/admission-messages';
import type { PolicyRecord } from '../../contract/policy-messages';
import type { ApprovalAuditEntry } from '../../contract/approval-messages';
import type { OperatorAction } from '../../contract/run-messages';
import { runIdArgument } from '../workflow-id';

export const AUDIT_SPEC = {
  name: 'audit',
  usage: 'ID [--json]',
  description: [
    'What the worker decided at the start (catalogue entry or refusal, the starter and whether a',
    'registered key signed the start), the policy rules that applied, then one line per decision,',
    'oldest first: time, step, approve/reject, who, key id, and "counted" or the refusal code and',
    'reason; then the hold actions (retry, skip, rollback) with their signer, applied or refused.',
    '--json prints { workflowId, runId, admission, approvals, policies, actions }.',
  ],
  options: {},
  optionHelp: [],
  examples: ['tideline audit fork-and-promote-8e2d4a', 'tideline audit fork-and-promote-8e2d4a --json'],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

/** What `tideline audit` shows of a run: its admission, policy rules, decisions and hold actions. */
export interface RunAudit {
  workflowId: string;
  runId: string;
  admission?: Admission;
  approvals: ApprovalAuditEntry[];
  policies: PolicyRecord[];
  actions: OperatorAction[];
}

/** The run's audit trail, from its progress (a running run) or its report (an ended one). */
export async function readRunAudit(session: TemporalSession, workflowId: string): Promise<RunAudit> {
  const handle = session.client.workflow.getHandle(workflowId);
  let snapshot;
  try {
    snapshot = await observeRun(session, handle);
  } catch (error) {
    if ((error as { name?: unknown }).name === 'WorkflowNotFoundError')
      throw new CliError('RUN_NOT_FOUND', `no run with id "${workflowId}"`);
    throw error;
  }
  const progress = snapshot.closed
    ? (await readOutcome(session, handle, snapshot)).progress
    : snapshot.progress;
  if (progress === undefined) {
    throw new CliError('TEMPORAL_UNAVAILABLE', `run ${workflowId} did not answer`, snapshot.note);
  }
  const { admission } = progress;
  return {
    workflowId,
    runId: snapshot.runId,
    ...(admission !== undefined && { admission }),
    approvals: progress.approvals ?? [],
    policies: progress.policies ?? [],
    actions: progress.actions ?? [],
  };
}

/** The audit trail as `tideline audit` prints it, one line each. */
export function auditText(audit: RunAudit): string[] {
  const { workflowId, admission, approvals, policies, actions } = audit;
  const lines: string[] = [];
  if (admission !== undefined) {
    lines.push(`run ${workflowId}: ${admissionLine(admission)}`);
    for (const record of [...admission.policies, ...policies]) lines.push(`  ${policyLine(record)}`);
  }
  if (approvals.length === 0) {
    lines.push(`run ${workflowId}: no decisions on approval steps with approvers`);
  } else {
    lines.push(`run ${workflowId}: ${approvals.length} decision(s)`);
    for (const entry of approvals) lines.push(`  ${auditLine(entry)}`);
  }
  if (actions.length > 0) {
    lines.push(`run ${workflowId}: ${actions.length} hold action(s)`);
    for (const action of actions) lines.push(`  ${holdActionLine(action)}`);
  }
  return lines;
}

async function audit(ctx: CliContext, workflowId: string): Promise<number> {
  const record = await withTemporal(ctx, (session) => readRunAudit(session, workflowId));
  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify(record)}\n`);
    return EXIT.OK;
  }
  ctx.stdout.write(`${auditText(record).join('\n')}\n`);
  return EXIT.OK;
}

export const auditCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(AUDIT_SPEC, argv, ctx);
  return audit(ctx, runIdArgument(parsed.positionals));
};
