// Why a tool call was refused, with a stable code an agent (or its user) can match on. The server
// turns these into tool results marked as errors; anything else is a bug and is reported as such.
export const MCP_TOOL_ERROR_CODES = [
  /** No runbook of that name is offered by this server. */
  'MCP_RUNBOOK_UNKNOWN',
  /** The runbook file no longer validates. */
  'MCP_RUNBOOK_INVALID',
  /** The inputs given do not bind to the runbook's declared inputs. */
  'MCP_INPUTS_INVALID',
  /** A secret input was given as a tool argument. */
  'MCP_SECRET_ARGUMENT',
  /** `start` was given a plan hash that no longer matches the plan. */
  'MCP_PLAN_CHANGED',
  /** The run is not one this agent started (cancel). */
  'MCP_NOT_AGENTS_RUN',
  /** No run of that id. */
  'MCP_RUN_NOT_FOUND',
  /** The rehearsal asked for cannot be set up: a fault or starting resource is wrong or unreadable. */
  'MCP_REHEARSAL_INVALID',
  /** The rehearsal's own Temporal, worker or local cloud could not be started. */
  'MCP_REHEARSAL_FAILED',
  /** The rehearsal was stopped before its run ended: the call was cancelled or the client went away. */
  'MCP_REHEARSAL_CANCELLED',
  /** Temporal could not be reached or refused the request. */
  'MCP_TEMPORAL_FAILED',
] as const;
export type McpToolErrorCode = (typeof MCP_TOOL_ERROR_CODES)[number];

export class McpToolError extends Error {
  constructor(
    readonly code: McpToolErrorCode,
    message: string,
    /** Extra text for the agent after the message (e.g. the new plan). */
    readonly detail?: string,
    /** Structured data returned with the error (e.g. the new plan hash). */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'McpToolError';
  }
}
