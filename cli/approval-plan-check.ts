// Approving is two steps a person can see: `tideline approve ID` shows the plan the step guards
// and its fingerprint and signs nothing; `tideline approve ID --plan FINGERPRINT` signs, but only
// while the step still guards the plan with that fingerprint (else it refuses with
// APPROVAL_PLAN_CHANGED and shows the new plan). On a terminal a prompt that shows the plan and
// asks for a yes stands in for `--plan`. The worker checks the signed plan again when it counts.
import { createInterface } from 'node:readline';
import type { ApprovalPlan } from '../contract/approval-messages';
import { planFingerprint, PLAN_FINGERPRINT_DIGITS } from '../activities/approval-signatures';
import type { CliContext } from './context';
import { CliError, EXIT } from './errors';
import { planText } from './output/approval-plan-text';
import { errorJson, printCliError } from './output/errors';
import { cliCommand } from './output/run-report';

/** `--plan`'s value as compared: lower case, the fingerprint's digits. */
export function fingerprintOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const digits = value.trim().toLowerCase();
  if (!new RegExp(`^[0-9a-f]{${PLAN_FINGERPRINT_DIGITS}}$`).test(digits)) {
    throw new CliError(
      'CLI_USAGE',
      `--plan takes the plan's fingerprint: ${PLAN_FINGERPRINT_DIGITS} hex digits`,
      'run the same command without --plan to see the plan and its fingerprint',
    );
  }
  return digits;
}

export interface PlanCheck {
  workflowId: string;
  stepKey: string;
  /** The plan the step guards now, as the run answered. */
  plan: ApprovalPlan;
  /** The fingerprint the person gave with `--plan`, if any. */
  given: string | undefined;
  /** The command line that approves, without `--plan` (for the hint). */
  approveWords: string[];
}

/** Asks the person at the terminal; true only for an explicit yes. */
async function confirmed(ctx: CliContext, question: string): Promise<boolean> {
  const stdin = ctx.stdin;
  if (stdin === undefined) return false;
  const prompt = createInterface({ input: stdin, output: ctx.stderr, terminal: false });
  try {
    const answer = await new Promise<string>((resolve) => {
      prompt.question(question, resolve);
      prompt.once('close', () => resolve(''));
    });
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

/** Shows the plan and why nothing was signed, with its code; the exit code of the command. */
function refuse(
  ctx: CliContext,
  check: PlanCheck,
  fingerprint: string,
  error: { code: string; message: string },
): number {
  const hint = `to approve this plan: ${cliCommand(ctx, [...check.approveWords, '--plan', fingerprint])}`;
  if (ctx.globals.json) {
    const { workflowId, stepKey, plan } = check;
    const document = {
      ...errorJson({ ...error, hint, details: [] }),
      workflowId,
      step: stepKey,
      fingerprint,
      plan,
    };
    ctx.stdout.write(`${JSON.stringify(document)}\n`);
    return EXIT.FAILED;
  }
  ctx.stdout.write(planText(check.stepKey, check.plan));
  printCliError(ctx, { ...error, hint, details: [] });
  return EXIT.FAILED;
}

/**
 * Whether the decision may be signed for `check.plan`: the person gave its fingerprint, or said
 * yes at the terminal after reading it. Otherwise prints the plan and returns the exit code.
 */
export async function checkPlanSeen(ctx: CliContext, check: PlanCheck): Promise<true | number> {
  const fingerprint = planFingerprint(check.plan);
  if (check.given !== undefined) {
    if (check.given === fingerprint) return true;
    return refuse(ctx, check, fingerprint, {
      code: 'APPROVAL_PLAN_CHANGED',
      message: `the plan of step ${check.stepKey} is not the one with fingerprint ${check.given} any more (it is now ${fingerprint}); nothing was signed: read the plan below`,
    });
  }
  if (ctx.stdin?.isTTY === true && !ctx.globals.json) {
    ctx.stdout.write(planText(check.stepKey, check.plan));
    if (await confirmed(ctx, `approve this plan (${fingerprint})? [y/N] `)) return true;
    ctx.stderr.write('not approved; nothing was signed\n');
    return EXIT.FAILED;
  }
  return refuse(ctx, check, fingerprint, {
    code: 'APPROVAL_PLAN_UNCONFIRMED',
    message: `step ${check.stepKey} of run ${check.workflowId} guards the plan above; nothing was signed: approve it by its fingerprint`,
  });
}
