// The runs an MCP server starts and reads, over the same Temporal client and payload encryption
// as the CLI (the command connects it): start a runbook run, read a run's state, find the runs that
// wait for a person's approval, and cancel a run this agent started. Every answer leaves secret
// values out: secret outputs are masked, inputs are never echoed.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { MASKED, type SignedStart, type StartFields } from '../contract/approval-messages';
import {
  progressQuery,
  reportInFailure,
  type PendingApproval,
  type RunbookWorkflowInput,
  type RunProgress,
  type RunReport,
} from '../contract/run-messages';
import { STATE_ATTRIBUTE } from '../contract/search-attributes';
import { RUNBOOK_WORKFLOW_TYPE } from '../contract/workflow-types';
import { McpToolError } from './errors';

/** The memo key naming the agent that started a run (what `cancel` checks). */
export const AGENT_MEMO_KEY = 'tidelineAgent';
/** How long a progress query may take before the answer says "no progress yet". */
const QUERY_TIMEOUT_MS = 5_000;
/** The most runs `list_waiting_approvals` reads. */
const WAITING_LIMIT = 50;

export interface RunState {
  runId: string;
  runbook: string;
  /** Temporal's status of the execution: RUNNING, COMPLETED, FAILED, CANCELLED, … */
  execution: string;
  /** tideline's own state when known (the run's progress or report). */
  status?: RunProgress['status'];
  steps: { key: string; status: string; error?: string }[];
  pendingApproval?: PendingApproval;
  failure?: RunProgress['failure'];
  /** A finished run's outputs, secret ones masked. */
  outputs?: Record<string, unknown>;
  startedBy?: string;
}

export interface WaitingApproval {
  runId: string;
  runbook: string;
  approval: PendingApproval;
}

export class AgentRuns {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Starts a run as `agent`, its start signed by `sign` for exactly this start. */
  async start(
    unsigned: RunbookWorkflowInput,
    workflowId: string,
    agent: string,
    sign: (fields: StartFields) => SignedStart,
  ): Promise<string> {
    const input: RunbookWorkflowInput = {
      ...unsigned,
      startedBy: sign({
        workflowId,
        taskQueue: this.taskQueue,
        by: agent,
        definition: unsigned.definition,
        inputs: unsigned.inputs,
      }),
    };
    try {
      await this.client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [input],
        memo: { runbook: input.definition.name, [AGENT_MEMO_KEY]: agent },
        staticSummary: `${input.definition.name}, started by ${agent}`,
      });
    } catch (error) {
      throw temporalFailure(error);
    }
    return workflowId;
  }

  async state(runId: string): Promise<RunState> {
    const handle = this.client.workflow.getHandle(runId);
    const description = await this.describe(runId);
    const execution = description.status.name;
    const base = {
      runId,
      runbook: memoString(description, 'runbook') ?? description.type,
      execution,
      ...(memoString(description, AGENT_MEMO_KEY) !== undefined && {
        startedBy: memoString(description, AGENT_MEMO_KEY),
      }),
    };
    let report: RunProgress | RunReport | undefined;
    if (execution === 'COMPLETED') report = (await handle.result()) as RunReport;
    else if (execution === 'FAILED') report = await handle.result().then(() => undefined, reportInFailure);
    else report = await this.progress(runId);
    if (report === undefined) return { ...base, steps: [] };
    return {
      ...base,
      status: report.status,
      steps: report.steps.map((step) => ({
        key: step.key,
        status: step.status,
        ...(step.error !== undefined && { error: step.error.message }),
      })),
      ...(report.pendingApproval !== undefined && { pendingApproval: report.pendingApproval }),
      ...(report.failure !== undefined && { failure: report.failure }),
      ...('outputs' in report && { outputs: maskedOutputs(report) }),
    };
  }

  async waitingApprovals(): Promise<WaitingApproval[]> {
    const query = `WorkflowType = '${RUNBOOK_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND ${STATE_ATTRIBUTE.name} = 'waiting-for-approval'`;
    const waiting: WaitingApproval[] = [];
    try {
      for await (const run of this.client.workflow.list({ query, pageSize: WAITING_LIMIT })) {
        const progress = await this.progress(run.workflowId);
        if (progress?.pendingApproval !== undefined)
          waiting.push({
            runId: run.workflowId,
            runbook: progress.runbook,
            approval: progress.pendingApproval,
          });
        if (waiting.length >= WAITING_LIMIT) break;
      }
    } catch (error) {
      throw temporalFailure(error);
    }
    return waiting;
  }

  /** Cancels a run `agent` started (MCP_NOT_AGENTS_RUN otherwise); its done steps are undone. */
  async cancel(runId: string, agent: string): Promise<void> {
    const description = await this.describe(runId);
    const starter = memoString(description, AGENT_MEMO_KEY);
    if (starter !== agent) {
      throw new McpToolError(
        'MCP_NOT_AGENTS_RUN',
        `run ${runId} was not started by ${agent}; an agent cancels only the runs it started`,
        'a person cancels other runs with `tideline cancel`',
      );
    }
    try {
      await this.client.workflow.getHandle(runId).cancel();
    } catch (error) {
      throw temporalFailure(error);
    }
  }

  private async describe(runId: string): Promise<WorkflowExecutionDescription> {
    try {
      return await this.client.workflow.getHandle(runId).describe();
    } catch (error) {
      if ((error as { name?: unknown }).name === 'WorkflowNotFoundError')
        throw new McpToolError('MCP_RUN_NOT_FOUND', `no run with id "${runId}"`);
      throw temporalFailure(error);
    }
  }

  /** The run's progress, or undefined when no worker answered in time. */
  private async progress(runId: string): Promise<RunProgress | undefined> {
    const handle = this.client.workflow.getHandle(runId);
    return this.client
      .withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => handle.query(progressQuery))
      .catch(() => undefined);
  }
}

function memoString(description: WorkflowExecutionDescription, key: string): string | undefined {
  const value = description.memo?.[key];
  return typeof value === 'string' ? value : undefined;
}

function maskedOutputs(report: RunReport): Record<string, unknown> {
  const secret = new Set(report.secretOutputs);
  return Object.fromEntries(
    Object.entries(report.outputs).map(([name, value]) => [name, secret.has(name) ? MASKED : value]),
  );
}

function temporalFailure(error: unknown): McpToolError {
  if (error instanceof McpToolError) return error;
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
  return new McpToolError('MCP_TEMPORAL_FAILED', `Temporal refused or could not be reached: ${message}`);
}
