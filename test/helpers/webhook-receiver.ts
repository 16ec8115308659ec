// A real HTTP receiver for notification tests, on 127.0.0.1 and a free port: records every POST
// by path, and answers each path as told (a status, or a list of statuses for the first posts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedPost {
  path: string;
  status: number;
  body: unknown;
  raw: string;
}

export interface WebhookReceiver {
  url(path: string): string;
  /** Every post, answered or not, in arrival order. */
  readonly posts: ReceivedPost[];
  /** The bodies a path accepted (answered 2xx). */
  accepted(path: string): unknown[];
  close(): Promise<void>;
}

/**
 * `answers[path]`: a status for every post to it, or the statuses of the first posts, then 200
 * (default 200 throughout).
 */
export async function startWebhookReceiver(
  answers: Record<string, number | number[]> = {},
): Promise<WebhookReceiver> {
  const posts: ReceivedPost[] = [];
  const seen = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const count = seen.get(path) ?? 0;
      seen.set(path, count + 1);
      const answer = answers[path];
      const status = typeof answer === 'number' ? answer : (answer?.[count] ?? 200);
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      posts.push({ path, status, body, raw });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    posts,
    accepted: (path) => posts.filter((p) => p.path === path && p.status < 300).map((p) => p.body),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
