// Registers every operation of the catalogue (cloud/operations.ts) as a route under
// /public/api/v1, and runs each request through: auth → project scope → injected faults →
// validation → handler → apply-then-fail → the answer's dialect → omitted fields. The catalogue
// is the single source of truth for method, path, schemas and success status.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ACTION_NAMES, operations, type ActionName, type OperationDef } from '../cloud/operations';
import { withoutAnswerField } from './answer-fields';
import type { Authenticator } from './auth';
import { formatIssues } from './config';
import { shapeAnswer, type Dialect } from './dialect';
import { LocalCloudHttpError, badRequest, notFound } from './errors';
import type { FaultInjector, RuleOf } from './faults';
import { API_PREFIX, CONTROL_PREFIX } from './http-layer';
import type { HandlerContext } from './routes/handler-types';
import { checkBodyNames } from './text-checks';
import { handlers } from './routes';
import { DROPPED, RequestStats, UNKNOWN_ACTION } from './stats';
import type { World } from './world';

/** One answer of a catalogue route, as it went out (after every onSend change, e.g. a 503). */
export interface ApiAnswer {
  action: ActionName;
  status: number;
  /** The parsed JSON body; undefined when the answer has none. */
  body: unknown;
  dialect: Dialect;
}

/**
 * Sees every answer of a catalogue route, successes and errors alike (not the control API's, not
 * unknown routes'). It runs before the answer is sent, so it should record and return: an error
 * it throws is reported as a process warning and the answer goes out unchanged.
 */
export type AnswerObserver = (answer: ApiAnswer) => void;

export interface ApiDeps {
  world: World;
  dialect: Dialect;
  onAnswer?: AnswerObserver | undefined;
  auth: Authenticator;
  faults: FaultInjector;
  stats: RequestStats;
  /** Aborted when the server closes, so requests hung by latency faults end at once. */
  closing: AbortSignal;
}

/** `/projects/{project_id}` → `/public/api/v1/projects/:project_id` */
export function routePath(path: string): string {
  return API_PREFIX + path.replace(/\{(\w+)\}/g, ':$1');
}

function validate(schema: z.ZodType, value: unknown, what: 'body' | 'query'): unknown {
  if (what === 'body' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw badRequest('body: must be a JSON object');
  }
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(formatIssues(result.error.issues));
  if (what === 'body') checkBodyNames(result.data);
  return result.data;
}

/** Whether the query schema's field `key` is a list (sent as a repeated parameter, `?a=1&a=2`). */
function isListField(schema: z.ZodType, key: string): boolean {
  if (!(schema instanceof z.ZodObject)) return false;
  let field: unknown = (schema.shape as Record<string, unknown>)[key];
  if (field instanceof z.ZodOptional) field = field.unwrap();
  return field instanceof z.ZodArray;
}

/**
 * Query strings carry text: the catalogue's integer query fields (logs `node`) take digits, and a
 * list field (logs `search`, `severities`) arrives as a string when given once and as an array
 * when repeated, so it is made an array either way.
 */
function coerceQuery(schema: z.ZodType, query: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (key === 'node' && typeof value === 'string' && /^[0-9]+$/.test(value)) out[key] = Number(value);
    else if (typeof value === 'string' && isListField(schema, key)) out[key] = [value];
    else out[key] = value;
  }
  return out;
}

function retryAfterHeader(rule: RuleOf<'rateLimit'>, now: number): string {
  if (rule.retryAfterFormat === 'date') return new Date(now + rule.retryAfterSeconds * 1000).toUTCString();
  return String(rule.retryAfterSeconds);
}

async function handle(action: ActionName, deps: ApiDeps, request: FastifyRequest, reply: FastifyReply) {
  const def: OperationDef = operations[action];
  const { world, faults } = deps;
  const project = deps.auth.authenticate(request.headers.authorization);
  const params = request.params as Record<string, string>;
  // A key sees only its own project. Another project's resources answer 404, not 403, so a key
  // cannot even learn that they exist (behaviour.md leaves the choice to us).
  if (params.project_id !== undefined && params.project_id !== project.id) {
    throw notFound(`project ${params.project_id} not found`);
  }

  const delay = faults.fireAll(action, 'latency').reduce((sum, rule) => sum + rule.ms, 0);
  if (delay > 0) {
    try {
      await sleep(delay, undefined, { signal: deps.closing });
    } catch {
      // The server is closing: a hung request ends without an answer, as it would on a real outage.
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    }
  }
  const rateLimit = faults.fireFirst(action, 'rateLimit');
  if (rateLimit) {
    reply.header('retry-after', retryAfterHeader(rateLimit, Date.now()));
    throw new LocalCloudHttpError(
      429,
      'RATE_LIMITED',
      'too many requests (injected fault); retry after the given delay',
    );
  }
  const failure = faults.fireFirst(action, 'error');
  if (failure) {
    throw new LocalCloudHttpError(
      failure.status,
      'INTERNAL',
      failure.message ?? 'internal error (injected fault)',
      {},
      failure.details,
    );
  }

  const context = {
    world,
    project,
    params,
    body: def.body ? validate(def.body, request.body, 'body') : undefined,
    query: def.query ? validate(def.query, coerceQuery(def.query, request.query), 'query') : undefined,
    now: world.clock.now(),
    outcome: (kind) => faults.fireOutcome(action, kind),
    anomaly: (service, series) => faults.fireAnomaly(action, service, series),
  } as HandlerContext<typeof action>;
  const result = (handlers[action] as (ctx: HandlerContext<typeof action>) => unknown)(context);

  const afterApply = faults.fireFirst(action, 'applyThenFail');
  if (afterApply?.mode === 'drop') {
    recordRequest(deps, request, action, DROPPED);
    reply.hijack();
    request.raw.socket.destroy();
    return reply;
  }
  if (afterApply) {
    throw new LocalCloudHttpError(
      afterApply.status,
      'INTERNAL',
      'internal error (injected fault after the change was applied)',
    );
  }
  // The one place the dialect applies: handlers answer spec.md's shape (dialect.ts).
  const answer = shapeAnswer(deps.dialect, action, params, result);
  const body = faults
    .fireAll(action, 'omitField')
    .reduce((shaped, rule) => withoutAnswerField(shaped, rule.field, rule.asNull), answer.body);
  reply.code(answer.status);
  return body === undefined ? reply.send() : reply.send(body);
}

/** When each API request arrived (wall clock), for the request log. */
const arrivals = new WeakMap<FastifyRequest, number>();
const wallClock = () => performance.timeOrigin + performance.now();

/** Counts the request and logs when it arrived and was answered. */
function recordRequest(
  deps: ApiDeps,
  request: FastifyRequest,
  action: string,
  status: number | typeof DROPPED,
): void {
  const answeredAt = wallClock();
  const project = (request.params as { project_id?: unknown } | undefined)?.project_id;
  deps.stats.record({
    action,
    project: typeof project === 'string' ? project : null,
    status,
    receivedAt: arrivals.get(request) ?? answeredAt,
    answeredAt,
  });
}

function isActionName(name: string): name is ActionName {
  return Object.hasOwn(operations, name);
}

/** The JSON an onSend payload carries (a string for everything the local cloud sends). */
function parsePayload(payload: unknown): unknown {
  const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : payload;
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function observe(deps: ApiDeps, action: ActionName, status: number, payload: unknown): void {
  if (!deps.onAnswer) return;
  try {
    deps.onAnswer({ action, status, body: parsePayload(payload), dialect: deps.dialect });
  } catch (error) {
    process.emitWarning(`local cloud: onAnswer threw: ${(error as Error).message}`);
  }
}

export function registerApi(app: FastifyInstance, deps: ApiDeps): void {
  app.addHook('onRequest', async (request) => {
    arrivals.set(request, wallClock());
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith(CONTROL_PREFIX)) {
      const action = (request.routeOptions.config as { action?: string }).action ?? UNKNOWN_ACTION;
      recordRequest(deps, request, action, reply.statusCode);
      if (isActionName(action)) observe(deps, action, reply.statusCode, payload);
    }
    return payload;
  });

  for (const action of ACTION_NAMES) {
    const def: OperationDef = operations[action];
    app.route({
      method: def.method,
      url: routePath(def.path),
      config: { action },
      handler: (request, reply) => handle(action, deps, request, reply),
    });
  }
}
