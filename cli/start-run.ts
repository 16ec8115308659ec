// Starting a run (shared by `run`, `rerun` and `reconcile`) and following it (`run`, `rerun`).
import type { KeyObject } from 'node:crypto';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { RunbookWorkflowInput } from '../contract/run-messages';
import { loadApprovalKey } from './approval-signing';
import { signStart } from '../activities/approval-signatures';
import { operatorName } from './run-update';
import type { CliContext } from './context';
import { CliError, EXIT } from './errors';
import { followRun } from './follow';
import { cliCommand } from './output/run-report';
import { RUNBOOK_WORKFLOW_TYPE } from './run-observer';
import { withTemporal, type TemporalSession } from './temporal';
import { isAlreadyStarted } from '../contract/workflow-types';

/** Temporal shows a run's summary on one line; longer ones are cut (the details have the rest). */
const SUMMARY_MAX = 200;
const DETAILS_MAX = 4_000;
const VALUE_MAX = 60;

function shown(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > VALUE_MAX ? `${text.slice(0, VALUE_MAX - 1)}…` : text;
}

/**
 * The run's static summary and details in Temporal's Web UI: the runbook and the inputs it was
 * given. Secret inputs appear by name only: these travel as payloads (encrypted by the codec here)
 * but are meant to be read by anyone who can list runs.
 */
export function runMetadata(input: RunbookWorkflowInput): { staticSummary: string; staticDetails: string } {
  const { definition } = input;
  const given = Object.keys(definition.inputs).filter((name) => input.inputs[name] !== undefined);
  const pairs = given.flatMap((name) => {
    if (definition.inputs[name]?.secret === true) return [];
    const value = shown(input.inputs[name]);
    return value === undefined ? [] : [`${name}=${value}`];
  });
  let summary = definition.name;
  for (const pair of pairs) {
    const next = `${summary}${summary === definition.name ? ': ' : ' '}${pair}`;
    if (next.length > SUMMARY_MAX) break;
    summary = next;
  }
  const lines = [
    `**${definition.name}**${definition.description ? ` — ${definition.description.trim()}` : ''}`,
  ];
  if (given.length > 0) lines.push('', 'inputs:');
  for (const name of given) {
    const secret = definition.inputs[name]?.secret === true;
    lines.push(`- ${name}: ${secret ? '(secret)' : `\`${shown(input.inputs[name]) ?? ''}\``}`);
  }
  if (input.onFailure !== undefined) lines.push('', `on failure: ${input.onFailure}`);
  const details = lines.join('\n');
  return {
    staticSummary: summary,
    staticDetails: details.length > DETAILS_MAX ? `${details.slice(0, DETAILS_MAX - 1)}…` : details,
  };
}

/** Who starts a run, and the approval key they sign the start with when they have one. */
export interface Starter {
  by: string;
  key: KeyObject | undefined;
}

/**
 * Who starts the run (`--by`, else the operator's name): with their approval key the start is
 * signed (the worker then knows who started it: self-approval, policies on groups), else claimed.
 */
export function starterOf(
  ctx: CliContext,
  by: string | undefined,
  keyFile: string | undefined,
): Starter | undefined {
  const name = by ?? operatorName(ctx.env);
  return name === undefined ? undefined : { by: name, key: loadApprovalKey(ctx, name, keyFile) };
}

/**
 * Starts the interpreter workflow for a run: the one start path of `run`, `rerun` and `reconcile`,
 * so the worker's catalogue, verified starter, locks, policies and change windows apply alike. The
 * start is signed here, for exactly what it starts: this id, task queue, definition and inputs.
 */
export async function startRunbookRun(
  ctx: CliContext,
  session: TemporalSession,
  unsigned: RunbookWorkflowInput,
  workflowId: string,
  starter: Starter | undefined,
  /**
   * A repair's start (worker/repair-run-id.ts): its id is never reused, and Temporal's
   * already-started error reaches the caller, which joins that run. Otherwise a taken id is a
   * usage error.
   */
  asRepair = false,
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  const { taskQueue } = session.target;
  const input: RunbookWorkflowInput =
    starter === undefined
      ? unsigned
      : {
          ...unsigned,
          startedBy: signStart(starter.key, {
            workflowId,
            taskQueue,
            by: starter.by,
            definition: unsigned.definition,
            inputs: unsigned.inputs,
          }),
        };
  try {
    return await session.client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
      taskQueue,
      workflowId,
      ...(asRepair && { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const }),
      args: [input],
      memo: { runbook: input.definition.name },
      ...runMetadata(input),
    });
  } catch (error) {
    if (isAlreadyStarted(error) && !asRepair) {
      throw new CliError(
        'CLI_USAGE',
        `a run with id "${workflowId}" is already running`,
        `choose another --id, or follow it with \`${cliCommand(ctx, ['status', workflowId])}\``,
      );
    }
    throw error;
  }
}

/** The shell's convention for a command ended by Ctrl-C. */
const INTERRUPTED = 130;

export interface StartOptions {
  detach: boolean;
  showSecrets: boolean;
  starter: Starter | undefined;
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
    const handle = await startRunbookRun(ctx, session, input, workflowId, options.starter);
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
