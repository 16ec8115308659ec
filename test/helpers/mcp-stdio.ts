// A minimal MCP client over the stdio transport, for tests: spawns the server, writes JSON-RPC 2.0
// messages to its stdin one per line and reads its stdout line by line (MCP's stdio framing:
// newline-delimited JSON, no embedded newlines). Responses are matched to requests by id; requests
// from the server (none are expected, the client announces no capabilities) are answered with
// "method not found". The server also ends when its stdin closes, so it cannot outlive the test.
import { spawn } from 'node:child_process';

export const MCP_PROTOCOL_VERSION = '2025-06-18';

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export class McpRpcError extends Error {
  constructor(
    readonly method: string,
    readonly error: JsonRpcError,
  ) {
    super(`${method}: JSON-RPC error ${error.code}: ${error.message}`);
  }
}

export interface McpToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface McpStdioClient {
  /** Sends a request; resolves with its `result`, rejects with McpRpcError, on exit or timeout. */
  request<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T>;
  notify(method: string, params?: unknown): void;
  /** `tools/call`; the tool's own failures come back as `isError: true`, not as a rejection. */
  callTool(name: string, args?: Record<string, unknown>): Promise<McpToolResult>;
  /** Notifications the server sent so far. */
  readonly notifications: { method: string; params?: unknown }[];
  /** Lines that were not JSON-RPC or answered no pending request (a test expects none). */
  readonly stray: string[];
  stderr(): string;
  /** The server's process id. */
  readonly pid: number | undefined;
  /** Closes stdin (the client going away) without waiting; `exited` tells when the server ended. */
  endInput(): void;
  /** Resolves with the server's exit. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Closes stdin (the transport's end) and waits for the exit, killing the server if it lingers. */
  close(): Promise<void>;
}

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export function startMcpStdio(
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; requestTimeoutMs?: number },
): McpStdioClient {
  const requestTimeoutMs = options.requestTimeoutMs ?? 20_000;
  const child = spawn(command, args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const pending = new Map<number, Pending>();
  const notifications: { method: string; params?: unknown }[] = [];
  const stray: string[] = [];
  let nextId = 1;
  let stderr = '';
  let buffered = '';
  let exitNote: string | undefined;

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      exitNote = `${command} exited (code ${code}, signal ${signal}); stderr: ${stderr.slice(-2000)}`;
      for (const [id, waiting] of pending) {
        clearTimeout(waiting.timer);
        pending.delete(id);
        waiting.reject(new Error(`${waiting.method}: ${exitNote}`));
      }
      resolve({ code, signal });
    });
  });
  child.once('error', (error) => {
    stderr += `\nspawn error: ${String(error)}`;
  });
  child.stdin.on('error', () => undefined); // EPIPE once the server is gone; exit reports it
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-64 * 1024);
  });

  const write = (message: Record<string, unknown>): void => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };

  const onMessage = (line: string): void => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      stray.push(line);
      return;
    }
    const message = parsed as {
      id?: number | string;
      method?: string;
      params?: unknown;
      result?: unknown;
      error?: JsonRpcError;
    };
    if (message.method !== undefined) {
      if (message.id === undefined) notifications.push({ method: message.method, params: message.params });
      else write({ id: message.id, error: { code: -32601, message: `not supported: ${message.method}` } });
      return;
    }
    const waiting = typeof message.id === 'number' ? pending.get(message.id) : undefined;
    if (!waiting || typeof message.id !== 'number') {
      stray.push(line);
      return;
    }
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error) waiting.reject(new McpRpcError(waiting.method, message.error));
    else waiting.resolve(message.result);
  };

  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line !== '') onMessage(line);
      newline = buffered.indexOf('\n');
    }
  });

  const request = <T>(method: string, params?: unknown): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (exitNote !== undefined) {
        reject(new Error(`${method}: ${exitNote}`));
        return;
      }
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method}: no answer in ${requestTimeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
      }, requestTimeoutMs);
      pending.set(id, { method, resolve: (result) => resolve(result as T), reject, timer });
      write({ id, method, ...(params === undefined ? {} : { params }) });
    });

  return {
    request,
    notify: (method, params) => write({ method, ...(params === undefined ? {} : { params }) }),
    callTool: (name, args = {}) => request<McpToolResult>('tools/call', { name, arguments: args }),
    notifications,
    stray,
    stderr: () => stderr,
    pid: child.pid,
    endInput: () => child.stdin.end(),
    exited,
    async close() {
      if (exitNote !== undefined) return;
      child.stdin.end();
      const lingering = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(lingering);
    },
  };
}
