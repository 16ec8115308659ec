// Each offered runbook as an MCP resource, `tideline://runbooks/NAME`: its YAML as the file holds
// it now, so an agent can read the whole definition besides what describe_runbook summarises.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpToolError } from './errors';
import type { RunbookLibrary } from './runbook-library';

export const RUNBOOK_URI_PREFIX = 'tideline://runbooks/';
const RUNBOOK_MIME_TYPE = 'application/yaml';

export function runbookUri(name: string): string {
  return `${RUNBOOK_URI_PREFIX}${encodeURIComponent(name)}`;
}

/** Registers the runbooks of `library` as resources, listed and read afresh at each request. */
export function registerRunbookResources(server: McpServer, library: RunbookLibrary): void {
  const template = new ResourceTemplate(`${RUNBOOK_URI_PREFIX}{name}`, {
    list: () => ({
      resources: library.list().map((runbook) => ({
        uri: runbookUri(runbook.name),
        name: runbook.name,
        title: runbook.file,
        description: runbook.definition.description ?? `the runbook ${runbook.name}`,
        mimeType: RUNBOOK_MIME_TYPE,
      })),
    }),
  });
  server.registerResource(
    'runbook',
    template,
    {
      title: 'Runbook definition',
      description: "A runbook's YAML definition, as its file holds it now",
      mimeType: RUNBOOK_MIME_TYPE,
    },
    (uri, variables) => {
      const given = variables.name;
      const name = decodeURIComponent((Array.isArray(given) ? given[0] : given) ?? '');
      try {
        const { text } = library.source(name);
        return { contents: [{ uri: uri.href, mimeType: RUNBOOK_MIME_TYPE, text }] };
      } catch (error) {
        if (error instanceof McpToolError)
          throw new McpError(ErrorCode.InvalidParams, `${error.code}: ${error.message}`);
        throw error;
      }
    },
  );
}
