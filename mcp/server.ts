// `tideline mcp`'s server: an McpServer with the profile's tools, over stdio (the client starts
// the server as its child and talks on stdin/stdout) or Streamable HTTP on 127.0.0.1 (each client
// session gets its own McpServer; every request must carry the bearer token). The agent's name
// comes from the client's `initialize` (its clientInfo) unless the configuration gives one.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { agentName } from './agent-name';
import { foreignRequest, originPolicy, type OriginPolicy } from './http-origin';
import { registerAgentPrompt } from './agent-prompt';
import { registerRunbookResources } from './runbook-resources';
import { registerTools, type McpToolDeps } from './tools';

export interface McpServerSettings extends Omit<McpToolDeps, 'agent' | 'clientGone'> {
  /** The configured agent name (`mcp:…`); absent: `mcp:` and the client's name. */
  agentName?: string;
  /** The server's version as announced to clients. */
  version: string;
}

export const MCP_SERVER_NAME = 'tideline';

/** `clientGone`: aborted when the client went away with calls still running (McpToolDeps). */
export function createMcpServer(settings: McpServerSettings, clientGone?: AbortSignal): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: settings.version },
    {
      instructions:
        'tideline runs typed runbooks against a managed database cloud. Plan before you start: `plan` returns a plan hash that `start` requires. Approvals are given by people with `tideline approve`; agents never approve.',
    },
  );
  const { agentName: configured, version: _version, ...deps } = settings;
  const tools = registerTools(server, {
    ...deps,
    ...(clientGone !== undefined && { clientGone }),
    agent: () => agentName(configured, server.server.getClientVersion()?.name),
  });
  registerRunbookResources(server, deps.library);
  registerAgentPrompt(server, tools);
  return server;
}

/**
 * Counts the client's requests the server has not answered yet, so that the end of the input
 * (the client's way of shutting the server down) lets those answers go out first. Installed
 * before the server connects; the server's message handler is wrapped when the transport starts,
 * after the server set it and before the first message is read.
 */
function trackRequests(transport: StdioServerTransport): { idle(): Promise<void> } {
  const open = new Set<string | number>();
  let wake: (() => void) | undefined;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const handle = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && 'id' in message) open.add(message.id);
      handle?.(message);
    };
    await start();
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      const id = !('method' in message) && 'id' in message ? message.id : undefined;
      if (id !== undefined && open.delete(id) && open.size === 0) wake?.();
    }
  };
  return {
    idle: () =>
      open.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            wake = resolve;
          }),
  };
}

/**
 * Serves one client on `input`/`output` until the input ends and every request is answered. The
 * end of the input is the client going away: rehearsals still running are cancelled then (their
 * answer says so), quicker calls still answer.
 */
export async function serveStdio(
  settings: McpServerSettings,
  streams: { input: Readable; output: Writable },
): Promise<void> {
  const gone = new AbortController();
  const server = createMcpServer(settings, gone.signal);
  const transport = new StdioServerTransport(streams.input, streams.output);
  const ended = new Promise<void>((resolve) => {
    streams.input.once('end', resolve);
    streams.input.once('close', resolve);
  });
  const requests = trackRequests(transport);
  await server.connect(transport);
  await ended;
  gone.abort(new Error('the client closed its input'));
  await requests.idle();
  await server.close();
}

export interface McpHttpServer {
  /** The endpoint clients connect to, e.g. http://127.0.0.1:8808/mcp. */
  url: string;
  close(): Promise<void>;
}

/** The path the Streamable HTTP endpoint answers on. */
export const MCP_HTTP_PATH = '/mcp';

function sameToken(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 1_000_000) throw new Error('the request body is larger than 1 MB');
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
}

export interface McpHttpOptions {
  /** The loopback port; 0: any free one. */
  port: number;
  /** The bearer token every request must carry. */
  token: string;
  /** Host names answered besides 127.0.0.1 and localhost (NAME or NAME:PORT; http-origin.ts). */
  allowHosts?: readonly string[];
  /** Origins answered besides the server's own loopback ones. */
  allowOrigins?: readonly string[];
}

/**
 * Serves Streamable HTTP on 127.0.0.1:`port`. A request with a foreign Host or Origin is refused
 * (403) before anything else, then every request needs the token. A session's calls still running
 * are cancelled when it closes (DELETE) or the server closes.
 */
export async function serveHttp(
  settings: McpServerSettings,
  options: McpHttpOptions,
): Promise<McpHttpServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  /** Known once the server listens (its port is the policy's). */
  const listening: { policy?: OriginPolicy } = {};
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const { policy } = listening;
    const foreign = policy === undefined ? 'the server is starting' : foreignRequest(request.headers, policy);
    if (foreign !== undefined) return refuse(response, 403, foreign);
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== MCP_HTTP_PATH)
      return refuse(response, 404, `the MCP endpoint is ${MCP_HTTP_PATH}`);
    if (!sameToken(request.headers.authorization, options.token))
      return refuse(response, 401, 'a bearer token is required (Authorization: Bearer TOKEN)');
    const sessionId = request.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    if (known !== undefined) return known.transport.handleRequest(request, response, body);
    if (request.method !== 'POST' || !isInitializeRequest(body))
      return refuse(response, 400, 'no session: start with an initialize request');
    const server = createMcpServer(settings);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  };
  const http: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        refuse(response, 400, error instanceof Error ? error.message : String(error));
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, '127.0.0.1', () => resolve());
  });
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  listening.policy = originPolicy(port, {
    ...(options.allowHosts !== undefined && { hosts: options.allowHosts }),
    ...(options.allowOrigins !== undefined && { origins: options.allowOrigins }),
  });
  return {
    url: `http://127.0.0.1:${port}${MCP_HTTP_PATH}`,
    async close() {
      await Promise.all([...sessions.values()].map(({ server }) => server.close()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
