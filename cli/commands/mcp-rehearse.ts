// What `tideline mcp`'s rehearse tool does: copies the resources the run's inputs name from the
// cloud the worker configuration reaches (names and shapes only) and runs the runbook on a fresh
// local cloud with them and the faults asked for, on a Temporal and worker of the rehearsal's own
// (rehearsal/rehearse-run.ts, the machinery of `tideline test`). The answer says how the run
// ended, the requests it made, what compensation undid, and the failure.
import { McpToolError } from '../../mcp/errors';
import type { StepRecord } from '../../contract/run-messages';
import type { McpToolDeps } from '../../mcp/tools';
import { RehearsalStage, rehearsalCase, type RehearsalOutcome } from '../../rehearsal/rehearse-run';
import { rehearsalSeed } from '../../rehearsal/rehearsal-seed';
import type { CliContext } from '../context';
import { planWorkerConfig } from '../plan/target-lister';

/** How long a rehearsed run may take before the rehearsal gives up on it. */
const REHEARSAL_TIMEOUT_MS = 120_000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `scripted`: the steps the request's approvals answer (by id or key). */
export function rehearsalText(
  runbook: string,
  outcome: RehearsalOutcome,
  scripted: readonly string[] = [],
): string {
  const lines = [`rehearsal of ${runbook} on a throwaway local cloud: ${outcome.status}`];
  if (outcome.failure !== undefined)
    lines.push(`failure: ${outcome.failure.stepKey ?? 'run'}: ${outcome.failure.message}`);
  if (outcome.error !== undefined) lines.push(`note: ${outcome.error}`);
  const waiting = outcome.steps.filter((step) => step.kind === 'approve' && step.status === 'running');
  const answered = (step: StepRecord) => scripted.includes(step.key) || scripted.includes(step.id);
  const unanswered = waiting.filter((step) => !answered(step));
  if (outcome.status === 'timed-out' && unanswered.length > 0)
    lines.push(
      `the run waited for approval at ${unanswered.map((step) => step.key).join(', ')}: rehearse again with approvals, e.g. [{"step": "${unanswered[0]?.id ?? ''}", "decision": "approve"}]`,
    );
  // Named in approvals yet still waiting, and no note says why: asked again, or under another key.
  const stillWaiting = waiting.filter(answered);
  if (outcome.status === 'timed-out' && stillWaiting.length > 0 && outcome.error === undefined)
    lines.push(
      `the run still waited for approval at ${stillWaiting.map((step) => step.key).join(', ')}, which approvals name: each time a step is asked takes an answer of its own, named by the key shown here`,
    );
  lines.push('steps:');
  for (const step of outcome.steps)
    lines.push(`  ${step.key}: ${step.status}${step.error !== undefined ? ` (${step.error.message})` : ''}`);
  if (outcome.compensations.length > 0) {
    lines.push('undone by compensation:');
    for (const step of outcome.compensations)
      lines.push(`  ${step.key} (undoes ${step.undoes}): ${step.status}`);
  }
  lines.push('API requests:');
  for (const [action, calls] of Object.entries(outcome.calls)) {
    const statuses = Object.entries(calls.byStatus).map(([status, count]) => `${count}×${status}`);
    lines.push(`  ${action}: ${calls.total} (${statuses.join(', ')})`);
  }
  return lines.join('\n');
}

/**
 * The rehearse tool of one `tideline mcp` process: its rehearsals share one test stack, started at
 * the first. A rehearsal ends early when its request's signal is aborted (the client cancelled the
 * call or went away). `close()` cancels the rehearsals still running, waits for them to wind down
 * (runs terminated, workers stopped, local clouds closed) and then closes the stack.
 */
export function mcpRehearser(ctx: CliContext): { rehearse: McpToolDeps['rehearse']; close(): Promise<void> } {
  const worker = planWorkerConfig(ctx);
  const stage = new RehearsalStage({
    env: ctx.env,
    log: (line) => ctx.stderr.write(`tideline mcp: rehearsal: ${line}\n`),
  });
  /** The rehearsals running, each with what cancels it. */
  const running = new Map<AbortController, Promise<unknown>>();
  const rehearse: McpToolDeps['rehearse'] = async ({ runbook, inputs, faults, approvals, signal }) => {
    const { definition } = runbook;
    let seed;
    try {
      seed = await rehearsalSeed(definition, inputs, (projectId, action, id) =>
        worker.readResource(projectId, action, id),
      );
    } catch (error) {
      throw new McpToolError(
        'MCP_REHEARSAL_INVALID',
        `the resources the inputs name could not be read from the cloud: ${message(error)}`,
      );
    }
    const check = rehearsalCase({ definition, inputs: seed.inputs, cloud: seed.cloud, faults, approvals });
    if (!check.ok)
      throw new McpToolError(
        'MCP_REHEARSAL_INVALID',
        'the rehearsal asked for cannot be set up',
        check.problems.join('\n'),
      );
    const cancel = new AbortController();
    const cancelled = AbortSignal.any([signal, cancel.signal]);
    const rehearsal = stage.rehearse(check.testCase, REHEARSAL_TIMEOUT_MS, cancelled);
    running.set(
      cancel,
      rehearsal.catch(() => undefined),
    );
    let outcome: RehearsalOutcome;
    try {
      outcome = await rehearsal;
    } catch (error) {
      throw new McpToolError('MCP_REHEARSAL_FAILED', `the rehearsal could not run: ${message(error)}`);
    } finally {
      running.delete(cancel);
    }
    if (cancelled.aborted)
      throw new McpToolError(
        'MCP_REHEARSAL_CANCELLED',
        'the rehearsal was cancelled (the call was cancelled, the client went away or the server is stopping); its run was terminated and its throwaway stack stopped',
      );
    return {
      text: rehearsalText(
        runbook.name,
        outcome,
        approvals.map((approval) => approval.step),
      ),
      structured: { runbook: runbook.name, startingCloud: seed.cloud, ...outcome },
    };
  };
  return {
    rehearse,
    async close() {
      const winding = [...running];
      for (const [cancel] of winding) cancel.abort();
      await Promise.all(winding.map(([, ended]) => ended));
      await stage.close();
    },
  };
}
