// A tiny scripted HTTP server on 127.0.0.1 (port 0) for the Cloud API client's unit tests: each
// test says how to answer and then inspects what the client actually sent. Not the local cloud.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createCloudClient, type CloudClient, type CloudClientOptions } from '../../cloud/client';

export interface SeenRequest {
  method: string;
  /** Path and query as received, e.g. `/public/api/v1/projects/p1/services?x=1`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Which TCP connection carried it (1 for the first connection the server accepted). */
  connection: number;
}

export type Handler = (request: SeenRequest, response: ServerResponse) => void;

export const BASE_PATH = '/public/api/v1';

export interface ScriptedServer {
  /** `http://127.0.0.1:PORT/public/api/v1` */
  baseUrl: string;
  port: number;
  requests: SeenRequest[];
  /** Number of TCP connections accepted so far. */
  connections(): number;
  /** Sets how the following requests are answered. */
  handle(handler: Handler): void;
  /** Answers the following requests with this status, JSON body (unless a string) and headers. */
  reply(status: number, body?: unknown, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}

/**
 * A Cloud API client of `server` (plain HTTP to loopback allowed, keys `a`/`s`); `options` add to
 * or override its settings.
 */
export function scriptedClient(
  server: ScriptedServer,
  options: Partial<CloudClientOptions> = {},
): CloudClient {
  return createCloudClient({
    baseUrl: server.baseUrl,
    accessKey: 'a',
    secretKey: 's',
    allowInsecureLoopback: true,
    ...options,
  });
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  const socketIds = new WeakMap<Socket, number>();
  let accepted = 0;
  let handler: Handler = (_request, response) => sendJson(response, 200, {});
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen: SeenRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        connection: socketIds.get(request.socket) ?? 0,
      };
      requests.push(seen);
      handler(seen, response);
    });
  });
  server.on('connection', (socket: Socket) => socketIds.set(socket, ++accepted));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${BASE_PATH}`,
    port,
    requests,
    connections: () => accepted,
    handle(next) {
      handler = next;
    },
    reply(status, body, headers) {
      handler = (_request, response) => sendJson(response, status, body, headers);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
