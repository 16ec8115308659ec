// The pure parts of runbook-level visibility: which project and services identify a run (never a
// secret input), which ids a step acted on or created, the `tideline list` query conditions, the
// static summary and details `run` gives a run, and that every place that registers the search
// attributes registers all of them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { listConditions } from '../../cli/commands/list';
import { devServerArgs } from '../../stack/temporal-dev-server';
import { runMetadata } from '../../cli/start-run';
import type { RunbookDefinition, StepDefinition } from '../../dsl/definition';
import { searchAttributeCreateCommand } from '../../worker/namespace-check';
import { runIdentity } from '../../workflows/run-identity';
import { MAX_LISTED_SERVICES, RunVisibility, awaitingApprovers } from '../../workflows/run-visibility';
import { RunState } from '../../workflows/run-state';
import { TIDELINE_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';
import { addResource, createdResource, touchedResources } from '../../workflows/step-resources';

const ROOT = path.resolve(__dirname, '..', '..');

function definition(inputs: RunbookDefinition['inputs']): RunbookDefinition {
  return { apiVersion: 'tideline/v1', name: 'demo', description: 'A demo.', inputs, steps: [], outputs: {} };
}
const input = (secret = false) => ({ type: 'string' as const, required: true, secret });

describe('runIdentity', () => {
  test('project and services from non-secret inputs; secret values are remembered, never shown', () => {
    const identity = runIdentity(
      definition({
        project_id: input(),
        service_id: input(),
        parent_service_id: input(),
        replica_service_ids: { type: 'list', required: true, secret: false },
        new_password: input(true),
        name: input(),
      }),
      {
        project_id: 'p1',
        service_id: 's1',
        parent_service_id: 's2',
        replica_service_ids: ['s3', 7, ''],
        new_password: 'hunter22',
        name: 'orders',
      },
    );
    expect(identity.project).toBe('p1');
    expect(identity.services).toEqual(['s1', 's2', 's3']);
    expect([...identity.secretValues]).toEqual(['hunter22']);
  });

  test('a secret project id, or a service id equal to a secret value, is not shown', () => {
    const identity = runIdentity(
      definition({ project_id: input(true), service_id: input(), token: input(true) }),
      {
        project_id: 'p-secret',
        service_id: 'same',
        token: 'same',
      },
    );
    expect(identity.project).toBeUndefined();
    expect(identity.services).toEqual([]);
  });
});

describe('step resources', () => {
  const call = (action: string, actionKind: string, withs: Record<string, unknown>): StepDefinition =>
    ({
      kind: 'call',
      id: 'x',
      action,
      actionKind,
      with: withs,
      adopt: false,
      compensate: [],
      continueOnError: false,
    }) as unknown as StepDefinition;

  test('ids in the input, templates resolved; a create adds what it made', () => {
    const fork = call('service.fork', 'create', {
      project_id: 'p1',
      service_id: '${{ inputs.parent }}',
      vpc_id: 'v1',
    });
    const vars = { inputs: { parent: 'parent1' }, steps: {} };
    expect(touchedResources(fork, vars, new Set())).toEqual([
      { type: 'service', id: 'parent1' },
      { type: 'vpc', id: 'v1' },
    ]);
    expect(createdResource(fork, { service_id: 'fork1' }, new Set())).toEqual({
      type: 'service',
      id: 'fork1',
      created: true,
    });
    const vpc = call('vpc.create', 'create', { project_id: 'p1', name: 'n' });
    expect(createdResource(vpc, { id: 'v9' }, new Set())).toEqual({ type: 'vpc', id: 'v9', created: true });
    expect(
      createdResource(call('service.stop', 'mutate', {}), { service_id: 's' }, new Set()),
    ).toBeUndefined();
  });

  test('secret values, unresolvable templates and non-ids are skipped', () => {
    const step = call('service.get', 'read', {
      service_id: '${{ inputs.token }}',
      vpc_id: '${{ steps.nope.output.id }}',
      peering_id: 'x'.repeat(65),
    });
    expect(touchedResources(step, { inputs: { token: 'secret1' }, steps: {} }, new Set(['secret1']))).toEqual(
      [],
    );
  });

  test('addResource keeps one entry per id and marks it created', () => {
    const list = [{ type: 'service' as const, id: 's1' }];
    addResource(list, { type: 'service', id: 's1', created: true });
    addResource(list, { type: 'vpc', id: 'v1' });
    expect(list).toEqual([
      { type: 'service', id: 's1', created: true },
      { type: 'vpc', id: 'v1' },
    ]);
  });
});

test('TidelineServices is capped in count and in characters', () => {
  const visibility = new RunVisibility(false);
  for (let n = 0; n < 150; n++) visibility.addService(`svc${String(n).padStart(7, '0')}`);
  const listed = (visibility as unknown as { services: string[] }).services;
  expect(listed).toHaveLength(MAX_LISTED_SERVICES);
  const long = new RunVisibility(false);
  for (let n = 0; n < 100; n++) long.addService(`${'x'.repeat(60)}${n}`);
  expect(JSON.stringify((long as unknown as { services: string[] }).services).length).toBeLessThanOrEqual(
    1_500,
  );
});

test('list conditions use the search attributes and refuse what could escape the query', () => {
  expect(
    listConditions({ service: 's1', project: 'p1', state: 'waiting-for-approval', runbook: 'rb' }),
  ).toEqual([
    "WorkflowType = 'runbookWorkflow'",
    "TidelineRunbook = 'rb'",
    "TidelineProject = 'p1'",
    "TidelineServices = 's1'",
    "TidelineState = 'waiting-for-approval'",
  ]);
  expect(listConditions({ 'awaiting-approval': 'group:dba' })).toEqual([
    "WorkflowType = 'runbookWorkflow'",
    "TidelineAwaitingApproval = 'group:dba'",
  ]);
  expect(() => listConditions({ 'awaiting-approval': "x' OR 'y" })).toThrow(/--awaiting-approval must/);
  expect(() => listConditions({ state: 'asleep' })).toThrow(/unknown --state/);
  expect(() => listConditions({ service: "a' OR 'b" })).toThrow(/without quotes/);
  expect(() => listConditions({ project: 'a\nb' })).toThrow(/control characters/);
});

test('the static summary lists non-secret inputs on one line; details name secret ones only', () => {
  const def = definition({ project_id: input(), name: input(), password: input(true) });
  const { staticSummary, staticDetails } = runMetadata({
    definition: def,
    inputs: { project_id: 'p1', name: 'x'.repeat(300), password: 'hunter22' },
  });
  // Long values are cut; the summary stays one short line.
  expect(staticSummary).toBe(`demo: project_id=p1 name=${'x'.repeat(59)}…`);
  const many = runMetadata({
    definition: definition(Object.fromEntries(Array.from({ length: 20 }, (_, n) => [`input_${n}`, input()]))),
    inputs: Object.fromEntries(Array.from({ length: 20 }, (_, n) => [`input_${n}`, 'v'.repeat(40)])),
  });
  expect(many.staticSummary.length).toBeLessThanOrEqual(200);
  expect(many.staticSummary).toMatch(/^demo: input_0=v+ input_1=v+/);
  expect(staticDetails).toContain('**demo** — A demo.');
  expect(staticDetails).toContain('- password: (secret)');
  expect(staticDetails).not.toContain('hunter22');
});

test('every registration registers every attribute with its type', () => {
  const pairs = TIDELINE_SEARCH_ATTRIBUTES.map(({ name, type }) => `${name}=${type}`);
  // tideline dev and the test servers
  const args = devServerArgs({
    port: 1,
    searchAttributes: Object.fromEntries(pairs.map((p) => p.split('='))),
  });
  for (const pair of pairs) expect(args.join(' ')).toContain(`--search-attribute ${pair}`);
  // docker compose's namespace job
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, { command?: string[] }>;
  };
  const job = (compose.services['temporal-namespace']?.command ?? []).join('\n');
  expect(job).toContain(`for attribute in ${pairs.join(' ')}; do`);
  expect(job).toContain('temporal operator search-attribute create');
  // the command the worker's message and `tideline setup`'s hint give
  const command = searchAttributeCreateCommand('prod');
  for (const { name, type } of TIDELINE_SEARCH_ATTRIBUTES)
    expect(command).toContain(`--name ${name} --type ${type}`);
});

test('TidelineAwaitingApproval: who may answer the pending approvals that name approvers, each once', () => {
  const state = new RunState('demo', 0);
  expect(awaitingApprovers(state)).toEqual([]);
  const pending = { message: 'ok?', deadline: 0, default: 'reject' as const };
  state.openApproval({ ...pending, stepKey: 'plain' });
  expect(awaitingApprovers(state)).toEqual([]);
  const quorum = { minApprovals: 2, allowSelfApproval: false, approvedBy: [] };
  state.openApproval({ ...pending, ...quorum, stepKey: 'a', approvers: ['group:dba', 'alice'] });
  state.openApproval({ ...pending, ...quorum, stepKey: 'b', approvers: ['alice', 'bob'] });
  expect(awaitingApprovers(state)).toEqual(['alice', 'bob', 'group:dba']);
  state.closeApproval('a');
  expect(awaitingApprovers(state)).toEqual(['alice', 'bob']);
});
