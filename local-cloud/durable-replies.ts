// Holds every answer of a local cloud with a state file until the state it shows is on disk, so
// an acknowledged change survives `kill -9` (persistence.ts). Reads wait too when something is
// still being written: otherwise a GET could show a resource that a crash then takes back.
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from './http-layer';
import type { DurableStateFile } from './persistence';

const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Register before other onSend hooks, so they (request stats) see the final status. */
export function registerDurableReplies(app: FastifyInstance, stateFile: DurableStateFile): void {
  app.addHook('onSend', async (request, reply, payload) => {
    // Handlers call Store.changed(); a successful API change is noted here as well, so a handler
    // that forgot to would still not be answered before its change is saved.
    if (!READS.has(request.method) && request.url.startsWith(API_PREFIX) && reply.statusCode < 300) {
      stateFile.noteChange();
    }
    try {
      await stateFile.waitDurable();
      return payload;
    } catch (error) {
      // The change is in memory only; the client must not take it as done.
      reply.code(503).header('content-type', 'application/json; charset=utf-8');
      reply.removeHeader('content-length');
      return JSON.stringify({ code: 'INTERNAL', message: (error as Error).message });
    }
  });
}
