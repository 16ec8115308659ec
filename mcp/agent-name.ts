// The identity an agent's runs carry as their starter: `mcp:<client>` from the name the MCP client
// announces (`clientInfo.name`), or the name the server's configuration gives. Either starts with
// `mcp:`, which the worker never counts as an approver (contract/approval-messages.ts).
import { AGENT_KEY_NAME, AGENT_NAME_PREFIX, isAgentName } from '../contract/approval-messages';

/** Why `name` cannot be a configured agent name, or undefined. */
export function agentNameProblem(name: string): string | undefined {
  if (!isAgentName(name))
    return `must start with "${AGENT_NAME_PREFIX}" (an agent is never taken for a person)`;
  if (!AGENT_KEY_NAME.test(name))
    return 'may hold only letters, digits and . _ @ - after "mcp:" (at most 63)';
  return undefined;
}

/** The agent's name: the configured one, else `mcp:` and the client's announced name, tidied. */
export function agentName(configured: string | undefined, clientName: string | undefined): string {
  if (configured !== undefined) return configured;
  const tidy = (clientName ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9._@-]+/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '')
    .slice(0, 63);
  return `${AGENT_NAME_PREFIX}${tidy === '' ? 'client' : tidy}`;
}
