// The tools each profile offers (mcp/profiles.ts), read back through the SDK's own client from the
// server `tideline mcp` runs (mcp/server.ts), over an in-memory transport: read-only exposes no
// tool that changes anything, operate adds start and cancel, and no profile has an approve tool.
// The plan text and the runs are stand-ins here; test/integration/mcp-stdio.test.ts runs them real.
import { MCP_TOOLS, toolsOf, type McpProfile } from '../../mcp/profiles';
import { agentName, agentNameProblem } from '../../mcp/agent-name';
import { connectedClient, standInSettings } from '../helpers/mcp-settings';

const connected = (profile: McpProfile) => connectedClient(standInSettings(profile));

describe('profiles', () => {
  it('read-only (tools/list) exposes only tools that change nothing, each marked read-only', async () => {
    const client = await connected('read-only');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'audit',
        'describe_runbook',
        'history',
        'list_runbooks',
        'list_waiting_approvals',
        'plan',
        'rehearse',
        'status',
      ].sort(),
    );
    for (const tool of tools) {
      expect(MCP_TOOLS[tool.name as keyof typeof MCP_TOOLS].changes).toBe(false);
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    await client.close();
  });

  it('operate adds start and cancel; no profile has a tool that approves', async () => {
    const client = await connected('operate');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['start', 'cancel', 'plan']));
    expect(names).toHaveLength(Object.keys(MCP_TOOLS).length);
    for (const profile of ['read-only', 'operate'] as const)
      expect(
        toolsOf(profile).filter((name) => /approv|reject/.test(name) && name !== 'list_waiting_approvals'),
      ).toEqual([]);
    await client.close();
  });

  it("plan's input schema takes a runbook name and its inputs; start also needs the plan hash", async () => {
    const client = await connected('operate');
    const { tools } = await client.listTools();
    const schemaOf = (name: string) => tools.find((tool) => tool.name === name)?.inputSchema;
    expect(schemaOf('plan')).toMatchObject({ required: ['runbook'] });
    expect(schemaOf('start')).toMatchObject({ required: ['runbook', 'planHash'] });
    await client.close();
  });

  it('refuses a secret input given to plan as an argument, as a tool error with its code', async () => {
    const client = await connected('read-only');
    const result = await client.callTool({
      name: 'plan',
      arguments: {
        runbook: 'rotate-password',
        inputs: { project_id: 'p', service_id: 's', new_password: 'x1234567' },
      },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'MCP_SECRET_ARGUMENT' });
    expect(JSON.stringify(result.content)).not.toContain('x1234567');
    await client.close();
  });

  it('describes a runbook: inputs schema, the actions it changes and who must approve', async () => {
    const client = await connected('read-only');
    const result = await client.callTool({
      name: 'describe_runbook',
      arguments: { runbook: 'provision-production-service' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      name: 'provision-production-service',
      changes: expect.arrayContaining(['service.create', 'service.delete']),
      inputsSchema: { required: ['project_id', 'name', 'vpc_id'] },
    });
    const unknown = await client.callTool({ name: 'describe_runbook', arguments: { runbook: 'nope' } });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { code: 'MCP_RUNBOOK_UNKNOWN' } });
    await client.close();
  });
});

describe('the agent name', () => {
  it("is mcp: and the client's announced name, tidied, unless one is configured", () => {
    expect(agentName(undefined, 'Claude Code')).toBe('mcp:claude-code');
    expect(agentName(undefined, undefined)).toBe('mcp:client');
    expect(agentName('mcp:ops-bot', 'Cursor')).toBe('mcp:ops-bot');
  });

  it('must be configured as an mcp: name, never as a person', () => {
    expect(agentNameProblem('mcp:ops-bot')).toBeUndefined();
    expect(agentNameProblem('alice')).toMatch(/must start with "mcp:"/);
    expect(agentNameProblem('mcp:two words')).toMatch(/letters, digits/);
  });
});
