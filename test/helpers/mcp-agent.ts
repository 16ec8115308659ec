// An agent as an MCP client meets `tideline mcp`: the real binary over stdio, spawned by the MCP
// SDK's own client transport, against a test stack's Temporal and task queue, with the agent's name
// and the key that signs its starts; and calls of its tools that expect an answer or a refusal.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliEnvironment, TIDELINE_BIN } from './cli-process';
import type { RunbookStack } from './runbook-stack';
import { REPO_ROOT } from './worker-process';

export type Structured = Record<string, unknown>;

export interface StdioAgentOptions {
  stack: Pick<RunbookStack, 'server' | 'taskQueue'>;
  /** The folder of runbooks the server offers. */
  runbooks: string;
  /** The agent's name (`mcp:…`), the starter of its runs. */
  agent: string;
  /** The private key that signs the agent's starts. */
  key: KeyObject;
  /** The server's HOME, where its key file is written too. */
  home: string;
  /** More environment of the server, e.g. the Cloud API settings the rehearse tool reads with. */
  env?: NodeJS.ProcessEnv;
}

/** Writes a private key as a PEM only its owner can read; returns the file. */
export function writePrivateKey(file: string, key: KeyObject): string {
  writeFileSync(file, key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return file;
}

/** The SDK's client, connected over stdio to `tideline mcp --profile operate`. */
export async function connectStdioAgent(options: StdioAgentOptions): Promise<Client> {
  const keyFile = writePrivateKey(path.join(options.home, 'agent.pem'), options.key);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      TIDELINE_BIN,
      'mcp',
      '--profile',
      'operate',
      '--runbooks',
      options.runbooks,
      '--agent-name',
      options.agent,
      '--key',
      keyFile,
      '--address',
      options.stack.server.address,
      '--task-queue',
      options.stack.taskQueue,
    ],
    env: cliEnvironment({ HOME: options.home, ...options.env }) as Record<string, string>,
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'Integration Test', version: '1' });
  await client.connect(transport);
  return client;
}

export interface ToolCalls {
  /** The tool's answer, whether it succeeded or not. */
  call(name: string, args: Structured): Promise<CallToolResult>;
  /** The structured answer of a tool that must succeed (the test fails with its text otherwise). */
  ok(name: string, args: Structured): Promise<Structured>;
}

export function toolCalls(client: () => Client): ToolCalls {
  const call = async (name: string, args: Structured): Promise<CallToolResult> =>
    (await client().callTool({ name, arguments: args })) as CallToolResult;
  return {
    call,
    async ok(name, args) {
      const result = await call(name, args);
      expect({ isError: result.isError ?? false, content: result.content }).toMatchObject({ isError: false });
      return result.structuredContent as Structured;
    },
  };
}

/** The text of a tool answer's content. */
export function answerText(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
