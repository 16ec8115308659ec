// The control API under /__sim (outside the API prefix). Tests and benchmarks use it to inject
// faults, count requests and inspect state. Every request passes control-guard.ts first (token,
// no browsers, JSON bodies); `--no-control` leaves it unregistered, so every path is a 404.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { formatIssues } from './config';
import { controlGuard } from './control-guard';
import { badRequest, notFound } from './errors';
import { AddFaultsBody } from './fault-schema';
import type { FaultInjector } from './faults';
import { CONTROL_PREFIX } from './http-layer';
import type { RequestStats } from './stats';
import type { World } from './world';

export interface ControlDeps {
  world: World;
  faults: FaultInjector;
  stats: RequestStats;
  info: () => { url: string; seed: number; timeScale: number };
  /** What `Authorization: Bearer …` must carry. */
  token: string;
}

const FaultIdParams = z.object({ id: z.string() });

export function registerControlApi(root: FastifyInstance, deps: ControlDeps): void {
  // A plugin scope, so the guard runs on these routes (matched however the path was encoded) only.
  void root.register(async (app) => {
    app.addHook('onRequest', controlGuard(deps.token));
    registerControlRoutes(app, deps);
  });
}

function registerControlRoutes(app: FastifyInstance, deps: ControlDeps): void {
  const { world, faults, stats } = deps;

  app.get(`${CONTROL_PREFIX}/health`, async () => ({
    status: 'ok',
    ...deps.info(),
    now: new Date(world.clock.now()).toISOString(),
  }));

  app.get(`${CONTROL_PREFIX}/faults`, async () => ({ rules: faults.list() }));

  app.post(`${CONTROL_PREFIX}/faults`, async (request, reply) => {
    const parsed = AddFaultsBody.safeParse(request.body);
    if (!parsed.success) throw badRequest(formatIssues(parsed.error.issues));
    const rules = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
    return reply.code(201).send({ rules: faults.add(rules) });
  });

  app.delete(`${CONTROL_PREFIX}/faults`, async (_request, reply) => {
    faults.clear();
    return reply.code(204).send();
  });

  app.delete(`${CONTROL_PREFIX}/faults/:id`, async (request, reply) => {
    const { id } = FaultIdParams.parse(request.params);
    if (!faults.remove(id)) throw notFound(`fault rule ${id} not found`);
    return reply.code(204).send();
  });

  app.get(`${CONTROL_PREFIX}/stats`, async () => stats.view());
  app.get(`${CONTROL_PREFIX}/requests`, async () => ({ requests: stats.requestLog() }));

  app.post(`${CONTROL_PREFIX}/stats/reset`, async (_request, reply) => {
    stats.reset();
    return reply.code(204).send();
  });

  app.get(`${CONTROL_PREFIX}/state`, async () => {
    const snapshot = world.store.snapshot();
    return {
      now: new Date(world.clock.now()).toISOString(),
      // Key pairs stay out of the dump.
      projects: snapshot.projects.map(({ id, name }) => ({ id, name })),
      vpcs: snapshot.vpcs,
      services: snapshot.services,
    };
  });

  app.post(`${CONTROL_PREFIX}/reset`, async (_request, reply) => {
    world.store.clearResources();
    faults.clear();
    stats.reset();
    return reply.code(204).send();
  });
}
