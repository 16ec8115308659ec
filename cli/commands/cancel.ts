// `tideline cancel ID`: asks the run to stop. The interpreter compensates what it completed
// (newest first) and ends Cancelled; this command follows that and reports what was undone.
// Exit 0 when the run ended cancelled with every compensation done, 1 otherwise.
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { EXIT } from '../errors';
import { followRun } from '../follow';
import { printCliError } from '../output/errors';
import { cliCommand } from '../output/run-report';
import { runStatusOf, type RunOutcome } from '../run-observer';
import { withTemporal } from '../temporal';
import { runIdArgument } from '../workflow-id';

export const CANCEL_SPEC = {
  name: 'cancel',
  usage: 'ID [--detach]',
  description: [
    'Requests cancellation of run ID. The run undoes the steps it completed (their `compensate`',
    'steps, newest first) and ends Cancelled; the command follows that and reports what was undone.',
    'Exit 0 when every compensation succeeded, 1 when one failed or the run had already ended.',
  ],
  options: { detach: { type: 'boolean', short: 'd' } },
  optionHelp: [['-d, --detach', 'request the cancellation and return without waiting']],
  examples: [
    'tideline cancel provision-production-service-3f9a1c',
    'tideline cancel nightly-resize-0c1d2e --detach',
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

function cancelledCleanly(outcome: RunOutcome): number {
  const leftovers = (outcome.progress?.steps ?? []).some((step) => step.status === 'compensation-failed');
  return outcome.status === 'cancelled' && !leftovers ? EXIT.OK : EXIT.FAILED;
}

export const cancelCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(CANCEL_SPEC, argv, ctx);
  const workflowId = runIdArgument(parsed.positionals);
  return withTemporal(ctx, async (session) => {
    const handle = session.client.workflow.getHandle(workflowId);
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') {
      printCliError(ctx, {
        code: 'RUN_NOT_RUNNING',
        message: `run ${workflowId} has already ended (${runStatusOf(description.status.name)}); there is nothing to cancel`,
        hint: `its report: ${cliCommand(ctx, ['status', workflowId])}`,
        details: [],
      });
      return EXIT.FAILED;
    }
    await handle.cancel();
    if (parsed.values.detach) {
      if (ctx.globals.json) {
        ctx.stdout.write(
          `${JSON.stringify({ workflowId, runId: description.runId, status: 'cancelling' })}\n`,
        );
      } else {
        ctx.stdout.write(
          `cancellation of ${workflowId} requested; follow the compensation: ${cliCommand(ctx, ['status', workflowId])}\n`,
        );
      }
      return EXIT.OK;
    }
    if (!ctx.globals.json)
      ctx.stdout.write(`cancellation of ${workflowId} requested; compensating completed steps…\n`);
    return followRun(ctx, session, handle, { showSecrets: false, exitCodeFor: cancelledCleanly });
  });
};
