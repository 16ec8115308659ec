// The runbooks an MCP server offers as resources (mcp/runbook-resources.ts) and the prompt that walks
// an agent through a change (mcp/agent-prompt.ts), read through the SDK's own client in memory.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AGENT_PROMPT_NAME } from '../../mcp/agent-prompt';
import { connectedClient, REPO_RUNBOOKS, standInSettings } from '../helpers/mcp-settings';

describe('runbooks as resources', () => {
  it('lists each offered runbook at tideline://runbooks/NAME and reads its YAML', async () => {
    const client = await connectedClient(standInSettings('read-only'));
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris).toContain('tideline://runbooks/provision-production-service');
    expect(uris.every((uri) => uri.startsWith('tideline://runbooks/'))).toBe(true);
    expect(resources.find((r) => r.name === 'provision-production-service')).toMatchObject({
      mimeType: 'application/yaml',
      description: expect.stringContaining('Create a service'),
    });
    const read = await client.readResource({ uri: 'tideline://runbooks/provision-production-service' });
    expect(read.contents).toEqual([
      {
        uri: 'tideline://runbooks/provision-production-service',
        mimeType: 'application/yaml',
        text: readFileSync(path.join(REPO_RUNBOOKS, 'provision-production-service.yaml'), 'utf8'),
      },
    ]);
    await client.close();
  });

  it('refuses a runbook it does not offer, with the code', async () => {
    const client = await connectedClient(standInSettings('read-only'));
    await expect(client.readResource({ uri: 'tideline://runbooks/nope' })).rejects.toThrow(
      /MCP_RUNBOOK_UNKNOWN/,
    );
    await client.close();
  });
});

describe('the prompt', () => {
  it('walks an operating agent through describe, plan, rehearse, start with the hash and watching', async () => {
    const client = await connectedClient(standInSettings('operate'));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual([AGENT_PROMPT_NAME]);
    const prompt = await client.getPrompt({
      name: AGENT_PROMPT_NAME,
      arguments: { runbook: 'provision-production-service', goal: 'a database for billing' },
    });
    const [message] = prompt.messages;
    const text = message?.content.type === 'text' ? message.content.text : '';
    expect(text).toContain('provision-production-service: a database for billing');
    const order = [
      'describe_runbook',
      'plan with the inputs',
      'Call rehearse',
      'start with the same inputs and the plan hash',
      'status until it ends',
      'tideline approve',
    ].map((word) => text.indexOf(word));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    await client.close();
  });

  it('names no start tool for a read-only server: a person starts the run', async () => {
    const client = await connectedClient(standInSettings('read-only'));
    const prompt = await client.getPrompt({
      name: AGENT_PROMPT_NAME,
      arguments: { runbook: 'provision-production-service' },
    });
    const text = JSON.stringify(prompt.messages);
    expect(text).not.toContain('start with the same inputs');
    expect(text).toContain('plan with the inputs');
    expect(text).toContain('a person starts the run');
    await client.close();
  });
});
