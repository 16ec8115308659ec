// The fastify instance and everything that makes every answer `{code, message}` JSON, whatever
// raised it: the JSON body parser (malformed JSON or invalid UTF-8 → 400), the error handler, the
// framework and raw-socket errors (http-limits.ts), and 404 / 405 for unknown paths and methods.
// It also sets the timeouts that cut off slow clients.
import { TextDecoder } from 'node:util';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { AllowedMethods } from './allowed-methods';
import { LocalCloudHttpError, badRequest } from './errors';
import {
  MAX_PARAM_LENGTH,
  clientErrorHandler,
  fastifyErrorAnswer,
  resolveHttpLimits,
  type ErrorAnswer,
  type HttpLimits,
} from './http-limits';

export const API_PREFIX = '/public/api/v1';
export const CONTROL_PREFIX = '/__sim';

// `fatal`: a body with invalid UTF-8 is refused instead of silently turned into U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

function sendError(reply: FastifyReply, { status, code, message }: ErrorAnswer) {
  return reply.code(status).send({ code, message });
}

export function createApp(overrides: Partial<HttpLimits> = {}): FastifyInstance {
  const limits = resolveHttpLimits(overrides);
  const app = Fastify({
    logger: false,
    // Close hung connections too (latency faults), so `close()` never waits for them.
    forceCloseConnections: true,
    bodyLimit: limits.bodyLimitBytes,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Keep-alive for clients that reuse connections; a little above undici's default.
    keepAliveTimeout: 10_000,
    // Slow clients (a body trickling in a byte at a time) are cut off with a 408. Only receiving
    // the request counts: a request held open by a latency fault is not cut.
    requestTimeout: limits.requestTimeoutMs,
    // Node checks these timeouts every 30 s by default; every second keeps the cut-off close to
    // the limit.
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    clientErrorHandler: clientErrorHandler(limits),
    // Bad URL encoding and over-long path parameters never reach the error handler.
    frameworkErrors: (error, _request, reply) => sendError(reply, fastifyErrorAnswer(error, limits)),
  });

  const allowed = new AllowedMethods();
  app.addHook('onRoute', (route) => allowed.add(route.url, route.method));

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, raw, done) => {
    let source: string;
    try {
      source = typeof raw === 'string' ? raw : utf8.decode(raw);
    } catch {
      done(badRequest('the request body is not valid UTF-8'), undefined);
      return;
    }
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

  app.setErrorHandler((error: FastifyError | LocalCloudHttpError, _request, reply) => {
    if (error instanceof LocalCloudHttpError) {
      return reply
        .code(error.status)
        .headers(error.headers)
        .send({
          code: error.apiCode,
          message: error.message,
          ...(error.details !== undefined ? { details: error.details } : {}),
        });
    }
    return sendError(reply, fastifyErrorAnswer(error, limits));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = allowed.for(path);
    if (methods.length > 0) {
      return reply
        .code(405)
        .header('allow', methods.join(', '))
        .send({
          code: 'METHOD_NOT_ALLOWED',
          message: `${request.method} is not allowed on ${path} (allowed: ${methods.join(', ')})`,
        });
    }
    return reply.code(404).send({ code: 'NOT_FOUND', message: `no route ${request.method} ${path}` });
  });

  return app;
}
