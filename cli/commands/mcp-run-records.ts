// What `tideline mcp`'s history and audit tools answer: the timeline `tideline history` prints and
// the trail `tideline audit` prints, read the same way, as plain text and as their --json shape.
import { McpToolError } from '../../mcp/errors';
import type { McpToolDeps } from '../../mcp/tools';
import { CliError } from '../errors';
import { historyJson, renderHistory } from '../output/history-view';
import { PLAIN_STYLE } from '../output/style';
import { explainTemporalError, type TemporalSession } from '../temporal';
import { auditText, readRunAudit } from './audit';
import { readRunHistory } from './history';

/** A failure of a read as the tool's refusal: an unknown run, or Temporal's trouble. */
function refusalOf(error: unknown, session: TemporalSession, runId: string): McpToolError {
  if (error instanceof McpToolError) return error;
  const explained = explainTemporalError(error, session.target) ?? error;
  if (explained instanceof CliError && explained.code === 'RUN_NOT_FOUND')
    return new McpToolError('MCP_RUN_NOT_FOUND', `no run with id "${runId}"`);
  const message = explained instanceof Error ? explained.message : String(explained);
  return new McpToolError('MCP_TEMPORAL_FAILED', `Temporal refused or could not be reached: ${message}`);
}

export function mcpRunRecords(temporal: () => Promise<TemporalSession>): McpToolDeps['records'] {
  const read = async <T>(runId: string, reader: (session: TemporalSession) => Promise<T>): Promise<T> => {
    const session = await temporal();
    try {
      return await reader(session);
    } catch (error) {
      throw refusalOf(error, session, runId);
    }
  };
  return {
    async history(runId) {
      const view = await read(runId, (session) => readRunHistory(session, runId));
      return {
        text: renderHistory(view, PLAIN_STYLE, Date.now()).join('\n'),
        structured: historyJson(view),
      };
    },
    async audit(runId) {
      const audit = await read(runId, (session) => readRunAudit(session, runId));
      return { text: auditText(audit).join('\n'), structured: { ...audit } };
    },
  };
}
