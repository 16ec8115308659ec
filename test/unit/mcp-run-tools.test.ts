// The history and audit tools (mcp/run-tools.ts): they answer what the CLI's readers give (stand-ins
// here; test/integration/mcp-server.test.ts reads real runs) as text and structured content, and a
// refusal of the reader as a tool error with its code.
import { McpToolError } from '../../mcp/errors';
import { connectedClient, standInSettings } from '../helpers/mcp-settings';

const settings = standInSettings('read-only', {
  records: {
    history: async (runId) => ({
      text: `timeline of ${runId}`,
      structured: { workflowId: runId, timeline: [] },
    }),
    audit: async (runId) => {
      if (runId === 'gone') throw new McpToolError('MCP_RUN_NOT_FOUND', 'no run with id "gone"');
      return { text: `audit of ${runId}`, structured: { workflowId: runId, approvals: [] } };
    },
  },
});

test('history and audit answer in text and structured content', async () => {
  const client = await connectedClient(settings);
  const history = await client.callTool({ name: 'history', arguments: { runId: 'run-1' } });
  expect(history).toMatchObject({
    content: [{ type: 'text', text: 'timeline of run-1' }],
    structuredContent: { workflowId: 'run-1', timeline: [] },
  });
  const audit = await client.callTool({ name: 'audit', arguments: { runId: 'run-1' } });
  expect(audit).toMatchObject({ structuredContent: { workflowId: 'run-1', approvals: [] } });
  await client.close();
});

test('a run the reader does not know is refused with MCP_RUN_NOT_FOUND', async () => {
  const client = await connectedClient(settings);
  const result = await client.callTool({ name: 'audit', arguments: { runId: 'gone' } });
  expect(result).toMatchObject({ isError: true, structuredContent: { code: 'MCP_RUN_NOT_FOUND' } });
  await client.close();
});
