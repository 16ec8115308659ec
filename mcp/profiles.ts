// Which tools a server registers, chosen by the person who configures it: `read-only` (the
// default) reads, plans and watches; `operate` adds the tools that change something (start a run,
// cancel one this agent started). No profile has an approve tool: people approve, agents never do.
export const MCP_PROFILES = ['read-only', 'operate'] as const;
export type McpProfile = (typeof MCP_PROFILES)[number];

/** Every tool, and whether it changes anything. */
export const MCP_TOOLS = {
  list_runbooks: { changes: false },
  describe_runbook: { changes: false },
  plan: { changes: false },
  // Runs on a throwaway local cloud of its own: nothing real changes.
  rehearse: { changes: false },
  status: { changes: false },
  list_waiting_approvals: { changes: false },
  history: { changes: false },
  audit: { changes: false },
  start: { changes: true },
  cancel: { changes: true },
} as const satisfies Record<string, { changes: boolean }>;
export type McpToolName = keyof typeof MCP_TOOLS;

/** The tools a profile offers. */
export function toolsOf(profile: McpProfile): McpToolName[] {
  const names = Object.keys(MCP_TOOLS) as McpToolName[];
  return profile === 'operate' ? names : names.filter((name) => !MCP_TOOLS[name].changes);
}
