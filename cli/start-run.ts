// Starting a run and following it: shared by `run` and `rerun`.
import type { RunbookWorkflowInput } from '../workflows/messages';
import type { CliContext } from './context';
import { CliError, EXIT } from './errors';
import { followRun } from './follow';
import { cliCommand } from './output/run-report';
import { RUNBOOK_WORKFLOW_TYPE } from './run-observer';
import { withTemporal } from './temporal';

/** The shell's convention for a command ended by Ctrl-C. */
const INTERRUPTED = 130;

export interface StartOptions {
  detach: boolean;
  showSecrets: boolean;
}

export function startAndFollow(
  ctx: CliContext,
  input: RunbookWorkflowInput,
  workflowId: string,
  options: StartOptions,
): Promise<number> {
  const name = input.definition.name;
  let interruptedEarly = false;
  void ctx.interrupted.then(() => (interruptedEarly = true));
  return withTemporal(ctx, async (session) => {
    if (interruptedEarly) {
      // Ctrl-C while connecting means "never mind", not "detach from a run started anyway".
      ctx.stderr.write('tideline: interrupted; nothing was started\n');
      return INTERRUPTED;
    }
    let handle;
    try {
      handle = await session.client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
        taskQueue: session.target.taskQueue,
        workflowId,
        args: [input],
        memo: { runbook: name },
      });
    } catch (error) {
      if ((error as { name?: unknown }).name === 'WorkflowExecutionAlreadyStartedError') {
        throw new CliError(
          'CLI_USAGE',
          `a run with id "${workflowId}" is already running`,
          `choose another --id, or follow it with \`${cliCommand(ctx, ['status', workflowId])}\``,
        );
      }
      throw error;
    }
    if (!ctx.globals.json) {
      ctx.stdout.write(`started ${name} as run ${workflowId} on task queue "${session.target.taskQueue}"\n`);
    }
    if (options.detach) {
      if (ctx.globals.json) {
        ctx.stdout.write(
          `${JSON.stringify({ workflowId, runId: handle.firstExecutionRunId, runbook: name, status: 'running' })}\n`,
        );
      } else {
        ctx.stdout.write(`follow it: ${cliCommand(ctx, ['status', workflowId])}\n`);
      }
      return EXIT.OK;
    }
    return followRun(ctx, session, handle, { showSecrets: options.showSecrets });
  });
}
