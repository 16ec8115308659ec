// Settings for an MCP server in unit tests: the repository's runbooks, a plan text and records that
// are stand-ins, and no Temporal (a tool that needs runs is refused as it would be without one).
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpProfile } from '../../mcp/profiles';
import { RunbookLibrary } from '../../mcp/runbook-library';
import { createMcpServer, type McpServerSettings } from '../../mcp/server';

export const REPO_RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');

export function standInSettings(
  profile: McpProfile,
  overrides: Partial<McpServerSettings> = {},
): McpServerSettings {
  return {
    profile,
    library: RunbookLibrary.ofFolder(REPO_RUNBOOKS),
    renderPlan: async (runbook) => `Plan for ${runbook.name}`,
    secrets: { values: () => ({}), sourceOf: (name) => `TIDELINE_INPUT_${name.toUpperCase()}` },
    runs: () => Promise.reject(new Error('no Temporal in a unit test')),
    signStart: ({ by }) => ({ by }),
    newRunId: (name) => `${name}-1`,
    rehearse: () => Promise.reject(new Error('no rehearsal stack in a unit test')),
    records: {
      history: () => Promise.reject(new Error('no Temporal in a unit test')),
      audit: () => Promise.reject(new Error('no Temporal in a unit test')),
    },
    version: '0.0.0-test',
    ...overrides,
  };
}

/** The SDK's own client, connected in memory to a server with `settings`. */
export async function connectedClient(settings: McpServerSettings): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(settings).connect(serverSide);
  const client = new Client({ name: 'Unit Test Agent', version: '1' });
  await client.connect(clientSide);
  return client;
}
