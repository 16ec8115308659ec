// The shipped runbooks: each validates cleanly, is documented, points editors at the schema, and
// compensates what it changes. A dry walk then evaluates every expression of every step (including
// compensation steps) against API-shaped answers, so no runbook fails at run time on a CEL
// mistake the static checks cannot see (e.g. has() on an index).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { operations, type ActionName } from '../../cloud/operations';
import { assertNever } from '../../cloud/assert-never';
import type { RunbookDefinition, StepDefinition } from '../../dsl/definition';
import type { JsonValue } from '../../dsl/expressions';
import { evaluateCondition, evaluateExpression } from '../../dsl/expressions';
import { bindInputs } from '../../dsl/inputs';
import { checkRunbookFile } from '../../dsl/loader';
import { formatProblem } from '../../dsl/problems';
import { resolveCount, resolveDurationMs, resolveTemplates } from '../../dsl/templates';
import { shippedRunbookFiles } from '../helpers/shipped-runbook-files';

const dir = join(__dirname, '..', '..', 'runbooks');
const SHIPPED = [
  'add-read-replica',
  'enable-ha',
  'enable-pooler',
  'fork-and-promote',
  'provision-production-service',
  'resize-with-rollback',
  'rotate-password',
  'start-dev-services',
  'stop-dev-services',
  'vpc-with-peering',
];

function service(id: string, environment: string, status: string): Record<string, JsonValue> {
  return {
    service_id: id,
    project_id: 'proj000001',
    name: `svc-${id}`,
    status,
    paused: status === 'PAUSED',
    endpoint: { host: `${id}.example`, port: 5432 },
    connection_pooler: { endpoint: { host: `${id}.pooler.example`, port: 6432 } },
    // The current dialect's name; the client's reading adds spec.md's vpcEndpoint (answer()).
    vpc_endpoint: { host: `${id}.vpc.example`, port: 5432, vpc_id: '42' },
    metrics: null,
    ha_replicas: { replica_count: 1, sync_replica_count: 0 },
    metadata: { environment },
    resources: [{ id: 'r1', spec: { cpu_millis: 1000, memory_gbs: 4 } }],
  };
}
const replicaSet = {
  id: 'rs00000001',
  name: 'reads',
  nodes: 1,
  status: 'active',
  endpoint: { host: 'rs.example', port: 5432 },
};
const vpc = { id: '42', name: 'net', cidr: '10.0.0.0/16', region_code: 'us-east-1' };
const peering = {
  id: '7',
  status: 'active',
  peer_account_id: 'acc',
  peer_region_code: 'us-east-1',
  peer_vpc_id: 'vpc-1',
};

/** What each action answers, read as the client reads it (the catalogue's response schema). */
function answer(action: ActionName): JsonValue {
  const raw = rawAnswer(action);
  const schema = operations[action].response as z.ZodType | undefined;
  return schema === undefined || raw === null ? raw : (schema.parse(raw) as JsonValue);
}

/** What each action answers, shaped like the API's responses in its current dialect. */
function rawAnswer(action: ActionName): JsonValue {
  if (action === 'service.create' || action === 'service.fork') {
    return { ...service('new0000001', 'DEV', 'QUEUED'), initial_password: 'not-a-real-password' };
  }
  if (action === 'service.list')
    return [
      service('dev0000001', 'DEV', 'READY'),
      service('prd0000001', 'PROD', 'READY'),
      service('dev0000002', 'DEV', 'PAUSED'),
    ];
  if (
    action.startsWith('service.') &&
    ['get', 'start', 'stop', 'resize', 'setHA'].includes(action.split('.')[1] ?? '')
  ) {
    return service('svc0000001', 'PROD', 'READY');
  }
  if (action === 'replicaSet.list') return [replicaSet];
  if (action === 'replicaSet.create') return replicaSet;
  if (action === 'vpc.create' || action === 'vpc.get') return vpc;
  if (action === 'peering.create' || action === 'peering.get') return peering;
  if (action.endsWith('.delete') || action === 'service.updatePassword' || action === 'replicaSet.resize')
    return null;
  return { message: 'ok' };
}

const INPUTS: Record<string, Record<string, unknown>> = {
  'add-read-replica': {
    project_id: 'proj000001',
    service_id: 'svc0000001',
    name: 'reads',
    environment: 'PROD',
    pooler: true,
  },
  'enable-ha': {
    project_id: 'proj000001',
    service_id: 'svc0000001',
    replica_count: '2',
    sync_replica_count: '1',
  },
  'enable-pooler': { project_id: 'proj000001', service_id: 'svc0000001' },
  'fork-and-promote': { project_id: 'proj000001', service_id: 'svc0000001', require_approval: 'true' },
  'provision-production-service': { project_id: 'proj000001', name: 'orders', vpc_id: '42' },
  'resize-with-rollback': { project_id: 'proj000001', service_id: 'svc0000001', cpu_millis: '2000' },
  'rotate-password': {
    project_id: 'proj000001',
    service_id: 'svc0000001',
    new_password: 'new-secret-1',
    previous_password: 'old-secret-1',
  },
  'start-dev-services': { project_id: 'proj000001' },
  'stop-dev-services': { project_id: 'proj000001', name_prefix: 'svc-' },
  'vpc-with-peering': {
    project_id: 'proj000001',
    name: 'net',
    cidr: '10.0.0.0/16',
    region_code: 'us-east-1',
    peer_account_id: 'acc',
    peer_region_code: 'us-east-1',
    peer_vpc_id: 'vpc-1',
  },
};

type Scope = {
  inputs: Record<string, JsonValue>;
  steps: Record<string, { output: JsonValue; status: 'done' | 'skipped' }>;
  [variable: string]: unknown;
};

/** Evaluates everything a step would evaluate, in order, recording fake outputs; returns how many steps ran. */
function dryRun(steps: StepDefinition[], scope: Scope): number {
  let ran = 0;
  for (const step of steps) {
    ran += 1;
    // The body is evaluated even when `if` is false, to cover its expressions; the record says
    // what the interpreter would (a skipped step reads as null with status skipped).
    const runs = step.if === undefined || evaluateCondition(step.if, scope);
    const record = (output: JsonValue) =>
      (scope.steps[step.id] = runs ? { output, status: 'done' } : { output: null, status: 'skipped' });
    if (step.timeoutMs !== undefined) expect(resolveDurationMs(step.timeoutMs, scope)).toBeGreaterThan(0);
    switch (step.kind) {
      case 'call':
        resolveTemplates(step.with, scope);
        record(answer(step.action));
        break;
      case 'wait': {
        resolveTemplates(step.with, scope);
        const result = answer(step.action);
        if (step.until !== undefined) evaluateCondition(step.until, { ...scope, result });
        if (step.failIf !== undefined) evaluateCondition(step.failIf, { ...scope, result });
        record(result);
        break;
      }
      case 'watch': {
        resolveTemplates(step.with, scope);
        const result = answer(step.action);
        evaluateCondition(step.failIf, { ...scope, result });
        record(result);
        break;
      }
      case 'sleep':
        resolveDurationMs(step.durationMs, scope);
        break;
      case 'approve':
        resolveTemplates(step.message, scope);
        record({ approved: true });
        break;
      case 'assert':
        evaluateCondition(step.condition, scope);
        if (step.message !== undefined) resolveTemplates(step.message, scope);
        break;
      case 'fail':
        resolveTemplates(step.message, scope);
        break;
      case 'parallel':
        for (const branch of step.branches) ran += dryRun(branch.steps, scope);
        break;
      case 'foreach': {
        const items = evaluateExpression(step.items, scope);
        expect(Array.isArray(items)).toBe(true);
        expect(resolveCount(step.concurrency, scope)).toBeGreaterThanOrEqual(1);
        const outputs: JsonValue[] = [];
        for (const item of items as JsonValue[]) {
          const inner: Scope = { ...scope, steps: { ...scope.steps }, [step.as]: item };
          ran += dryRun(step.steps, inner);
          outputs.push(Object.fromEntries(step.steps.map((s) => [s.id, inner.steps[s.id]?.output ?? null])));
        }
        record(outputs);
        break;
      }
      case 'runbook':
        resolveTemplates(step.with, scope);
        break;
      default:
        assertNever(step, 'step kind');
    }
    ran += dryRun(step.compensate, { ...scope, steps: { ...scope.steps } });
  }
  return ran;
}

function allSteps(steps: StepDefinition[]): StepDefinition[] {
  return steps.flatMap((s) => [
    s,
    ...allSteps(s.compensate),
    ...(s.kind === 'parallel' ? s.branches.flatMap((b) => allSteps(b.steps)) : []),
    ...(s.kind === 'foreach' ? allSteps(s.steps) : []),
  ]);
}

describe('shipped runbooks', () => {
  it('are exactly the nine of the design', () => {
    expect(shippedRunbookFiles(dir)).toEqual(SHIPPED.map((n) => `${n}.yaml`));
  });

  describe.each(SHIPPED)('%s', (name) => {
    const file = join(dir, `${name}.yaml`);
    let definition: RunbookDefinition;

    beforeAll(() => {
      const checked = checkRunbookFile(file);
      if (!checked.definition) throw new Error(checked.problems.map(formatProblem).join('\n'));
      definition = checked.definition;
    });

    it('validates cleanly, is named after its file and documents itself and its inputs', () => {
      expect(definition.name).toBe(name);
      expect(definition.description.length).toBeGreaterThan(40);
      for (const [input, spec] of Object.entries(definition.inputs)) {
        expect([input, spec.description ?? '']).not.toEqual([input, '']);
      }
    });

    it('points editors at the JSON Schema on its first line', () => {
      expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(
        '# yaml-language-server: $schema=../schema/runbook.schema.json',
      );
    });

    it('compensates every create, and changes nothing without a way back', () => {
      const steps = allSteps(definition.steps);
      const compensated = steps.filter((s) => s.compensate.length > 0);
      expect(compensated.length).toBeGreaterThan(0);
      for (const step of steps) {
        if (step.kind === 'call' && step.actionKind === 'create')
          expect([step.id, step.compensate.length > 0]).toEqual([step.id, true]);
      }
    });

    it('evaluates every expression against API-shaped answers', () => {
      const bound = bindInputs(definition.inputs, INPUTS[name] ?? {});
      if (!bound.ok) throw new Error(JSON.stringify(bound.problems));
      const scope: Scope = { inputs: bound.values, steps: {} };
      const ran = dryRun(definition.steps, scope);
      expect(ran).toBeGreaterThanOrEqual(allSteps(definition.steps).length);
      const outputs = Object.fromEntries(
        Object.entries(definition.outputs).map(([key, out]) => [key, resolveTemplates(out.value, scope)]),
      );
      for (const value of Object.values(outputs)) expect(value).not.toBeNull();
    });
  });
});
