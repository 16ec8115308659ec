// Raw HTTP over a TCP socket, for what a well-behaved client cannot send: invalid bytes in a path,
// oversized headers, unknown methods, a body trickling in. Reads until the server closes.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
}

function parse(raw: Buffer, closedAfterMs: number): RawAnswer {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyText = end < 0 ? '' : text.slice(end + 4);
  let body: unknown = bodyText;
  try {
    body = JSON.parse(bodyText);
  } catch {
    // Not JSON: the test sees the text.
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body, closedAfterMs };
}

export interface RawOptions {
  /** Sent after `request`, one chunk every `intervalMs`, until the server closes the connection. */
  trickle?: { chunk: string; intervalMs: number };
  /** Give up (and fail) after this long; default 30 s. */
  timeoutMs?: number;
}

/** Sends `request` as-is (a string is sent as latin1, so `\xff` is the byte 0xFF) and reads the answer. */
export function rawHttp(
  origin: string,
  request: string | Buffer,
  options: RawOptions = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${options.timeoutMs ?? 30_000} ms`));
    }, options.timeoutMs ?? 30_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answer (the server destroys the socket) is a close like any other.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      clearInterval(timer);
      resolve(parse(Buffer.concat(chunks), Date.now() - started));
    });
    socket.write(typeof request === 'string' ? Buffer.from(request, 'latin1') : request);
    const trickle = options.trickle;
    if (trickle) {
      timer = setInterval(() => {
        if (socket.writable) socket.write(trickle.chunk);
      }, trickle.intervalMs);
    }
  });
}
