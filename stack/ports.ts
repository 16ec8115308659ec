// Loopback ports for the dev stack: the usual ones when they are free, any free one otherwise.
import { createServer } from 'node:net';
import { StackError } from './stack-error';

export const LOOPBACK = '127.0.0.1';

/** True when a server could bind `port` on 127.0.0.1 right now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: LOOPBACK, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** A port that was free a moment ago on 127.0.0.1. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, LOOPBACK, () => {
      const address = probe.address();
      probe.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not find a free port'));
      });
    });
  });
}

export interface PortRequest {
  /** What the port is for, in messages (`--port`, …). */
  flag: string;
  /** Asked for on the command line: must be free, no fallback. */
  explicit?: number | undefined;
  /** Tried first when nothing was asked for; a free port otherwise. */
  preferred?: number | undefined;
  /** Ports already handed out to this stack. */
  taken?: readonly number[];
}

export async function choosePort(request: PortRequest): Promise<number> {
  const taken = request.taken ?? [];
  if (request.explicit !== undefined) {
    if (request.explicit === 0) return pickFree(taken);
    if (taken.includes(request.explicit) || !(await isPortFree(request.explicit))) {
      throw new StackError(
        'CLI_USAGE',
        `${request.flag} ${request.explicit}: the port is already in use on ${LOOPBACK}`,
        `choose another port, or leave out ${request.flag} to use a free one`,
      );
    }
    return request.explicit;
  }
  if (
    request.preferred !== undefined &&
    !taken.includes(request.preferred) &&
    (await isPortFree(request.preferred))
  ) {
    return request.preferred;
  }
  return pickFree(taken);
}

async function pickFree(taken: readonly number[]): Promise<number> {
  for (;;) {
    const port = await findFreePort();
    if (!taken.includes(port)) return port;
  }
}
