// The fastify instance and everything that makes every answer `{code, message}` JSON: the JSON
// body parser (malformed JSON → 400), the error handler and the 404 handler.
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { SimulatorHttpError, apiCodeForStatus, badRequest } from './errors';

export const API_PREFIX = '/public/api/v1';
export const CONTROL_PREFIX = '/__sim';

export function createApp(): FastifyInstance {
  const app = Fastify({
    logger: false,
    // Close hung connections too (latency faults), so `close()` never waits for them.
    forceCloseConnections: true,
    bodyLimit: 1024 * 1024,
    // Keep-alive for clients that reuse connections; a little above undici's default.
    keepAliveTimeout: 10_000,
  });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const source = typeof text === 'string' ? text : text.toString('utf8');
    if (source.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(source));
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'unreadable';
      done(badRequest(`malformed JSON body: ${reason}`), undefined);
    }
  });

  app.setErrorHandler((error: FastifyError | SimulatorHttpError, _request, reply) => {
    if (error instanceof SimulatorHttpError) {
      return reply
        .code(error.status)
        .headers(error.headers)
        .send({ code: error.apiCode, message: error.message });
    }
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    // Framework errors (empty or oversized bodies, bad media types) keep their status; anything
    // unexpected is a 500 whose details stay inside the server.
    const message = status < 500 ? error.message : 'internal error';
    return reply.code(status).send({ code: apiCodeForStatus(status), message });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return reply.code(404).send({ code: 'NOT_FOUND', message: `no route ${request.method} ${path}` });
  });

  return app;
}
