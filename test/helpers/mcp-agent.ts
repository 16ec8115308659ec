// An agent as an MCP client meets `tideline mcp`: the real binary over stdio (spawned by the MCP
// SDK's own client transport) or Streamable HTTP (a free port, a bearer token), against a test
// stack's Temporal and task queue, with the agent's name and the key that signs its starts; and calls of its tools that expect an answer or a refusal.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes, type KeyObject } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliEnvironment, startCli, TIDELINE_BIN } from './cli-process';
import type { RunbookStack } from './runbook-stack';
import { REPO_ROOT } from './worker-process';

export type Structured = Record<string, unknown>;

export interface AgentOptions {
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

/** How the agent reaches `tideline mcp`. */
export type AgentTransport = 'stdio' | 'Streamable HTTP';

/** An agent connected to a `tideline mcp` server it started. */
export interface ConnectedAgent {
  client: Client;
  /** The server's endpoint (Streamable HTTP only). */
  url?: URL;
  /** Closes the client and stops the server. */
  close(): Promise<void>;
}

/** Writes a private key as a PEM only its owner can read; returns the file. */
export function writePrivateKey(file: string, key: KeyObject): string {
  writeFileSync(file, key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return file;
}

/** The arguments of `tideline mcp --profile operate` for the agent. */
function operateArgs(options: AgentOptions): string[] {
  const keyFile = writePrivateKey(
    path.join(options.home, `${options.agent.replace(/\W/g, '-')}.pem`),
    options.key,
  );
  return [
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
  ];
}

/** The SDK's client, connected over stdio to `tideline mcp --profile operate`. */
export async function connectStdioAgent(options: AgentOptions): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TIDELINE_BIN, ...operateArgs(options)],
    env: cliEnvironment({ HOME: options.home, ...options.env }) as Record<string, string>,
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'Integration Test', version: '1' });
  await client.connect(transport);
  return client;
}

/** The endpoint `tideline mcp --http` prints when it is up. */
export const HTTP_ENDPOINT = /http:\/\/127\.0\.0\.1:\d+\/mcp/;

/** The HTTP status a `tools/list` request without the bearer token gets from the endpoint. */
export async function tokenlessStatus(url: URL): Promise<number> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return answer.status;
}

/**
 * The SDK's client, connected over Streamable HTTP to `tideline mcp --profile operate --http 0`
 * (a free port on 127.0.0.1), with the bearer token the server was given in TIDELINE_MCP_TOKEN.
 */
export async function connectHttpAgent(options: AgentOptions): Promise<ConnectedAgent> {
  const token = `mcp-token-${randomBytes(16).toString('hex')}`;
  const server = startCli([...operateArgs(options), '--http', '0'], {
    env: { HOME: options.home, ...options.env, TIDELINE_MCP_TOKEN: token },
  });
  const stop = async (): Promise<void> => {
    server.signal('SIGTERM');
    const { code } = await server.done;
    if (code !== 0) throw new Error(`tideline mcp --http exited ${code}: ${server.stderr()}`);
  };
  try {
    const url = new URL(HTTP_ENDPOINT.exec(await server.waitForStdout(HTTP_ENDPOINT))![0]);
    const client = new Client({ name: 'Integration Test over HTTP', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return {
      client,
      url,
      async close() {
        await client.close();
        await stop();
      },
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** The agent connected over the transport given. */
export async function connectAgent(
  transport: AgentTransport,
  options: AgentOptions,
): Promise<ConnectedAgent> {
  if (transport === 'Streamable HTTP') return connectHttpAgent(options);
  const client = await connectStdioAgent(options);
  return { client, close: () => client.close() };
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
