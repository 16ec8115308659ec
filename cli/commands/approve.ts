// `tideline approve ID` / `tideline reject ID`: answers a run's pending approval step through the
// interpreter's `approval` update, which checks that an approval is pending (and which one)
// before it accepts. A rejected approval fails the run, which then compensates. A step that guards
// a plan (approvers, in a run the worker admitted) is approved in two steps: the plan and its
// fingerprint first, then a decision signed for that fingerprint (approval-plan-check.ts).
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily like every SDK module */
import type { KeyObject } from 'node:crypto';
import type { ApprovalDecision } from '../../contract/run-messages';
import { loadApprovalKey } from '../approval-signing';
import { signDecision } from '../../activities/approval-signatures';
import { checkPlanSeen, fingerprintOption } from '../approval-plan-check';
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { EXIT } from '../errors';
import { printCliError } from '../output/errors';
import { printable } from '../../cloud/printable';
import { cliCommand } from '../output/run-report';
import { queryProgress, runStatusOf } from '../run-observer';
import { operatorName, sendRunUpdate } from '../run-update';
import { withTemporal, type TemporalSession } from '../temporal';
import { runIdArgument } from '../workflow-id';

/** How long to wait for the worker to take the decision. */

const OPTIONS = {
  step: { type: 'string' },
  comment: { type: 'string', short: 'm' },
  by: { type: 'string' },
  key: { type: 'string' },
  plan: { type: 'string' },
} as const;

const OPTION_HELP: [string, string][] = [
  ['--step STEP', 'which approval step (needed only when several are pending)'],
  ['-m, --comment TEXT', 'a note recorded with the decision'],
  ['--by NAME', 'who decides (default: your user name)'],
  ['--key FILE', 'sign with this private key (default ~/.tideline/approval-keys/NAME.pem, when there)'],
  ['--plan FINGERPRINT', "the fingerprint of the plan you read (the step's plan must still have it)"],
];

export const APPROVE_SPEC = {
  name: 'approve',
  usage: 'ID [--step STEP] [--plan FINGERPRINT] [--comment TEXT] [--by NAME] [--key FILE]',
  description: [
    'The run goes on with the step after the approval. Exit 1 when no approval is pending, or when a',
    'step with approvers refuses the decision (the reason is printed; `tideline audit ID` lists all).',
    'With a key for NAME the decision is signed (steps with approvers need that). A step that guards',
    'a plan is approved in two steps: without --plan the command shows the plan and its fingerprint',
    'and signs nothing (exit 1, APPROVAL_PLAN_UNCONFIRMED; on a terminal it asks instead); with',
    '--plan FINGERPRINT it signs for that plan, or refuses (APPROVAL_PLAN_CHANGED) and shows the new',
    'one when the plan changed since.',
  ],
  options: OPTIONS,
  optionHelp: OPTION_HELP,
  examples: [
    'tideline approve fork-and-promote-8e2d4a',
    'tideline approve fork-and-promote-8e2d4a --step go_ahead --comment "checked the fork" --by alice',
    'tideline approve promote-billing --by alice --plan 3f9a1c0b7d2e4a65',
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

export const REJECT_SPEC = {
  ...APPROVE_SPEC,
  name: 'reject',
  description: [
    'The approval step fails, so the run fails and undoes what it completed. Exit 1 when no approval',
    'is pending.',
  ],
  examples: ['tideline reject fork-and-promote-8e2d4a --comment "wrong parent"'],
} satisfies CommandSpec;

function decide(approved: boolean, spec: typeof APPROVE_SPEC): Command {
  return async (argv, ctx) => {
    const parsed = parseCommand(spec, argv, ctx);
    const workflowId = runIdArgument(parsed.positionals);
    const { values } = parsed;
    const decision: ApprovalDecision = { approved };
    if (values.step !== undefined) decision.step = values.step;
    const by = values.by ?? operatorName(ctx.env);
    if (by !== undefined) decision.by = by;
    if (values.comment !== undefined) decision.comment = values.comment;
    const seen = fingerprintOption(values.plan);
    const key = by === undefined ? undefined : loadApprovalKey(ctx, by, values.key);
    // The same command with --plan approves: the person's own choices, without the plan.
    const words = [spec.name, workflowId];
    if (values.step !== undefined) words.push('--step', values.step);
    if (values.comment !== undefined) words.push('--comment', values.comment);
    if (values.by !== undefined) words.push('--by', values.by);
    if (values.key !== undefined) words.push('--key', values.key);
    return withTemporal(ctx, (session) => send(ctx, session, workflowId, decision, key, { seen, words }));
  };
}

async function send(
  ctx: CliContext,
  session: TemporalSession,
  workflowId: string,
  decision: ApprovalDecision,
  key: KeyObject | undefined,
  person: { seen: string | undefined; words: string[] },
): Promise<number> {
  const { approvalUpdate } =
    require('../../contract/run-messages') as typeof import('../../contract/run-messages');
  const handle = session.client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const verb = decision.approved ? 'approve' : 'reject';
  if (description.status.name !== 'RUNNING') {
    printCliError(ctx, {
      code: 'APPROVAL_NOT_PENDING',
      message: `run ${workflowId} has already ended (${runStatusOf(description.status.name)}); there is nothing to ${verb}`,
      details: [],
    });
    return EXIT.FAILED;
  }
  const progress = await queryProgress(session, handle);
  if (key !== undefined && decision.by !== undefined) {
    // Signed for the full step key, which the run then matches exactly.
    const pending = progress?.pendingApproval?.stepKey;
    const asked = decision.step;
    const stepKey =
      asked === undefined || (pending !== undefined && (pending === asked || pending.endsWith(`.${asked}`)))
        ? (pending ?? asked ?? '')
        : asked;
    decision.step = stepKey;
    // What the approver signs for: the plan the step shows, when the worker admitted the run,
    // once the person has seen it (an approval; a rejection stops the run whatever the plan).
    const plan = progress?.pendingApproval?.stepKey === stepKey ? progress.pendingApproval.plan : undefined;
    if (plan === undefined && person.seen !== undefined) {
      printCliError(ctx, {
        code: 'APPROVAL_NO_PLAN',
        message: `step ${stepKey} of run ${workflowId} guards no plan, so --plan has nothing to match; nothing was signed`,
        hint: 'run the command without --plan',
        details: [],
      });
      return EXIT.FAILED;
    }
    if (plan !== undefined && (decision.approved || person.seen !== undefined)) {
      const seen = await checkPlanSeen(ctx, {
        workflowId,
        stepKey,
        plan,
        given: person.seen,
        approveWords: person.words,
      });
      if (seen !== true) return seen;
    }
    decision.signature = signDecision(key, {
      workflowId,
      runId: description.runId,
      stepKey,
      approved: decision.approved,
      by: decision.by,
      ...(decision.comment !== undefined && { comment: decision.comment }),
      ...(plan !== undefined && { plan }),
    });
  }
  const sent = await sendRunUpdate(ctx, session, {
    workflowId,
    verb,
    noun: 'decision',
    refusedCode: 'APPROVAL_NOT_PENDING',
    taskQueue: description.taskQueue,
    send: () => handle.executeUpdate(approvalUpdate, { args: [decision] }),
  });
  if ('exit' in sent) return sent.exit;
  const outcome = sent.answer;
  const step = decision.step ?? progress?.pendingApproval?.stepKey ?? null;
  if (outcome.refused !== undefined) {
    printCliError(ctx, {
      code: outcome.refused.code,
      message: `run ${workflowId} did not count this decision: ${outcome.refused.reason}`,
      hint: `every decision: ${cliCommand(ctx, ['audit', workflowId])}`,
      details: [],
    });
    return EXIT.FAILED;
  }
  if (ctx.globals.json) {
    ctx.stdout.write(
      `${JSON.stringify({ workflowId, step, approved: outcome.approved, by: outcome.by, comment: outcome.comment, ...(outcome.count !== undefined && { count: outcome.count }) })}\n`,
    );
    return EXIT.OK;
  }
  const { count } = outcome;
  if (decision.approved && count !== undefined && count.approvals < count.needed) {
    ctx.stdout.write(
      `${printable(`approval by ${decision.by ?? '?'} counted for step ${step ?? '?'} of run ${workflowId}`)}: ${count.approvals} of ${count.needed}; the step waits for more\n`,
    );
    return EXIT.OK;
  }
  const what = decision.approved ? 'approved' : 'rejected';
  const after = decision.approved ? 'the run goes on' : 'the run fails and compensates';
  ctx.stdout.write(
    `${what}${printable(`${step ? ` step ${step} of` : ''} run ${workflowId}${outcome.by ? ` (by ${outcome.by})` : ''}`)}; ${after}\n` +
      `follow it: ${cliCommand(ctx, ['status', workflowId])}\n`,
  );
  return EXIT.OK;
}

export const approveCommand: Command = decide(true, APPROVE_SPEC);
export const rejectCommand: Command = decide(false, REJECT_SPEC);
