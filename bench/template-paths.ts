// What a plain-path template costs the interpreter, read directly (dsl/member-path.ts) or
// evaluated by CEL. Every template of provision-production-service is resolved against a scope
// shaped like the run's when it reaches its last step: each earlier step's output is a whole
// service answer (the local cloud's, about 2 KB of JSON). The CEL side evaluates the same
// expression in parentheses, which the direct read leaves to CEL.
//
// Run: npm run bench:templates   (prints a table and writes bench/results/template-paths.json)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadRunbookFile } from '../dsl/loader';
import { evaluateExpression } from '../dsl/expressions';
import { findTemplates } from '../dsl/templates';
import { readMemberPath } from '../dsl/member-path';
import { PROVISION_RUNBOOK, RESULTS_DIR } from './lib/repo';
import { summarize } from './lib/stats';

const ROUNDS = 2_000;
const SAMPLES = 7;

function serviceAnswer(id: string): Record<string, unknown> {
  return {
    service_id: id,
    project_id: 'p1',
    name: `svc-${id}`,
    region_code: 'us-east-1',
    service_type: 'TIMESCALEDB',
    created: '2026-11-28T00:00:00Z',
    initial_password: null,
    status: 'READY',
    resources: [
      { id: 'r1', spec: { cpu_millis: 1000, memory_gbs: 4, volume_type: 'io2', storage_gbs: 100 } },
    ],
    metadata: { environment: 'PROD' },
    endpoint: { host: `${id}.example.test`, port: 5432 },
    vpc_endpoint: { host: `${id}.vpc.example.test`, port: 5432 },
    connection_pooler: { endpoint: { host: `${id}.pool.example.test`, port: 6432 } },
    ha_replicas: { replica_count: 1, sync_replica_count: 0 },
    forked_from: null,
    read_replica_sets: Array.from({ length: 3 }, (_, i) => ({
      id: `rr${i}`,
      name: `replica-${i}`,
      status: 'active',
      nodes: 1,
      cpu_millis: 1000,
      memory_gbs: 4,
      endpoint: { host: `rr${i}.example.test`, port: 5432 },
      connection_pooler: { endpoint: { host: `rr${i}.pool.example.test`, port: 6432 } },
    })),
  };
}

function main(): void {
  const definition = loadRunbookFile(PROVISION_RUNBOOK);
  const steps: Record<string, unknown> = {};
  for (const step of definition.steps)
    steps[step.id] = { status: 'done', output: serviceAnswer(`s-${step.id}`) };
  steps.create = { status: 'done', output: serviceAnswer('svc-1') };
  const variables = {
    inputs: { project_id: 'p1', name: 'db', cpu_millis: '1000', vpc_id: '42', ready_timeout: '30m' },
    steps,
  };
  const found = findTemplates(definition.steps).expressions.map((e) => e.expression);
  const plain = found.filter((e) => readMemberPath(e, variables) !== undefined);
  const time = (expressions: readonly string[]): number[] =>
    Array.from({ length: SAMPLES }, () => {
      const started = performance.now();
      for (let round = 0; round < ROUNDS; round++)
        for (const e of expressions) evaluateExpression(e, variables);
      return ((performance.now() - started) * 1000) / (ROUNDS * expressions.length);
    });
  time(plain);
  const direct = summarize(time(plain), 3);
  const cel = summarize(time(plain.map((e) => `(${e})`)), 3);
  const result = {
    runbook: definition.name,
    templates: found.length,
    plainPaths: plain.length,
    microsecondsPerTemplate: { direct, cel },
    speedup: Math.round((cel.p50 / direct.p50) * 10) / 10,
  };
  writeFileSync(path.join(RESULTS_DIR, 'template-paths.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `| ${definition.name}: ${plain.length} of ${found.length} templates are plain paths | µs each, min / median / max |`,
  );
  console.log('|---|---|');
  console.log(`| read directly | ${direct.min} / ${direct.p50} / ${direct.max} |`);
  console.log(`| evaluated by CEL | ${cel.min} / ${cel.p50} / ${cel.max} |`);
  console.log(`| median speed-up | ${result.speedup}× |`);
}

main();
