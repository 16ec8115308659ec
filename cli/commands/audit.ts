// `tideline audit ID [--json]`: every decision sent to the run's approval steps that name
// approvers — who, with which key, approve or reject, when, and whether it was counted or why not —
// from the run's progress (a running run) or its report (an ended one).
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { auditLine } from '../output/run-report';
import { admissionLine, holdActionLine, policyLine } from '../output/audit-lines';
import { observeRun, readOutcome } from '../run-observer';
import { withTemporal } from '../temporal';
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

async function audit(ctx: CliContext, workflowId: string): Promise<number> {
  return withTemporal(ctx, async (session) => {
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
    const approvals = progress.approvals ?? [];
    const policies = progress.policies ?? [];
    const actions = progress.actions ?? [];
    const { admission } = progress;
    if (ctx.globals.json) {
      ctx.stdout.write(
        `${JSON.stringify({ workflowId, runId: snapshot.runId, ...(admission !== undefined && { admission }), approvals, policies, actions })}\n`,
      );
      return EXIT.OK;
    }
    if (admission !== undefined) {
      ctx.stdout.write(`run ${workflowId}: ${admissionLine(admission)}\n`);
      for (const record of [...admission.policies, ...policies])
        ctx.stdout.write(`  ${policyLine(record)}\n`);
    }
    if (approvals.length === 0) {
      ctx.stdout.write(`run ${workflowId}: no decisions on approval steps with approvers\n`);
    } else {
      ctx.stdout.write(`run ${workflowId}: ${approvals.length} decision(s)\n`);
      for (const entry of approvals) ctx.stdout.write(`  ${auditLine(entry)}\n`);
    }
    if (actions.length > 0) {
      ctx.stdout.write(`run ${workflowId}: ${actions.length} hold action(s)\n`);
      for (const action of actions) ctx.stdout.write(`  ${holdActionLine(action)}\n`);
    }
    return EXIT.OK;
  });
}

export const auditCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(AUDIT_SPEC, argv, ctx);
  return audit(ctx, runIdArgument(parsed.positionals));
};
