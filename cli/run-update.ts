// Sending an operator's answer to a run as a Temporal workflow update (approve, reject, retry,
// skip, rollback), and turning the two ways that goes wrong into a CLI error: the run's validator
// refused it (exit 1, with the run's reason), or no worker took it in time (exit 3).
import { userInfo } from 'node:os';
import type { CliContext } from './context';
import { EXIT } from './errors';
import { printCliError } from './output/errors';
import { cliCommand } from './output/run-report';
import { workerNote } from './run-observer';
import type { TemporalSession } from './temporal';

/** How long the CLI waits for a worker to take (and the run to accept) the update. */
export const UPDATE_TIMEOUT_MS = 20_000;

export interface RunUpdate<T> {
  workflowId: string;
  /** What the operator does, for messages: `approve`, `retry`, … */
  verb: string;
  /** What is sent, for the timeout message: `decision`, `action`. */
  noun: string;
  /** The error code when the run refuses it, e.g. `APPROVAL_NOT_PENDING`. */
  refusedCode: string;
  taskQueue: string;
  send: () => Promise<T>;
}

/** Who answers, when `--by` is not given: the user running the CLI. */
export function operatorName(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return env.USER || env.USERNAME || userInfo().username || undefined;
  } catch {
    return undefined;
  }
}

/** The run's own reason for refusing an update (the validator's message). */
function refusal(error: unknown): string {
  const cause = (error as { cause?: { message?: string } }).cause;
  return cause?.message || (error instanceof Error ? error.message : String(error));
}

/** The update's answer, or the exit code after the error has been printed. */
export async function sendRunUpdate<T>(
  ctx: CliContext,
  session: TemporalSession,
  update: RunUpdate<T>,
): Promise<{ answer: T } | { exit: number }> {
  try {
    return { answer: await session.client.withDeadline(Date.now() + UPDATE_TIMEOUT_MS, update.send) };
  } catch (error) {
    const name = (error as { name?: unknown }).name;
    if (name === 'WorkflowUpdateFailedError') {
      printCliError(ctx, {
        code: update.refusedCode,
        message: `cannot ${update.verb} run ${update.workflowId}: ${refusal(error)}`,
        hint: `see the run: ${cliCommand(ctx, ['status', update.workflowId, '--once'])}`,
        details: [],
      });
      return { exit: EXIT.FAILED };
    }
    if (name === 'WorkflowUpdateRPCTimeoutOrCancelledError' || (error as { code?: unknown }).code === 4) {
      printCliError(ctx, {
        code: 'TEMPORAL_UNAVAILABLE',
        message: `no worker took the ${update.noun} within ${UPDATE_TIMEOUT_MS / 1000}s`,
        hint: await workerNote(session, update.taskQueue),
        details: [],
      });
      return { exit: EXIT.UNAVAILABLE };
    }
    throw error;
  }
}
