// The repairs `tideline reconcile` would start for a drift report (state/repair-plan.ts): one per
// service and runbook, `repair.with` filled in for the service and bound to the runbook's inputs,
// findings without a declared repair set apart, and inputs that cannot be made reported with a
// stable code instead of a run. Over a real dev stack and the CLI:
// test/integration/cli-commands-reconcile.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkDrift } from '../../state/drift-check';
import { planRepairs } from '../../state/repair-plan';
import { loadStateFile, type LoadedState } from '../../state/state-file';
import type { JsonValue } from '../../dsl/expressions';

const RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');
const display = (absolute: string) => path.relative(process.cwd(), absolute);

function service(name: string, extra: Record<string, JsonValue> = {}): JsonValue {
  return { service_id: `id-${name}`, name, status: 'READY', metadata: { environment: 'PROD' }, ...extra };
}

const POOLER = { endpoint: { host: 'h', port: 6432 } };
const fleet = [
  service('good', { ha_replicas: { replica_count: 1 }, connection_pooler: POOLER }),
  service('no-ha', { ha_replicas: { replica_count: 0 }, connection_pooler: POOLER }),
  service('bare', { ha_replicas: { replica_count: 0 } }),
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-repair-plan-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A state file whose rules are `rules` (YAML list items), with runbooks from runbooks/. */
function state(rules: string): LoadedState {
  const file = path.join(dir, `s${Math.random().toString(36).slice(2)}.state.yaml`);
  writeFileSync(
    file,
    `apiVersion: tideline/v1\nkind: State\nname: t\nrules:\n${rules.replaceAll('RUNBOOKS', RUNBOOKS)}`,
  );
  const checked = loadStateFile(file, display);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return checked.state;
}

/** A rule repaired by enable-ha; `extra` is the rest of its `with`. */
function haRule(name: string, options: { select?: string; expect?: string; extra?: string } = {}): string {
  return `  - name: ${name}
    select: { ${options.select ?? ''} }
    expect: ${options.expect ?? 'service.ha_replicas.replica_count >= 1'}
    repair:
      runbook: RUNBOOKS/enable-ha.yaml
      with: { project_id: '\${{ project_id }}', service_id: '\${{ service.service_id }}', ${options.extra ?? 'replica_count: 2'} }
`;
}

const HA_RULE = haRule('has-ha');

async function plan(loaded: LoadedState) {
  const report = await checkDrift(loaded, 'p1', async () => fleet);
  return planRepairs(loaded, report, fleet);
}

test('one run per drifted service, inputs filled in for it and bound with the defaults', async () => {
  const result = await plan(state(HA_RULE));
  expect(result.problems).toEqual([]);
  expect(result.unrepairable).toEqual([]);
  expect(result.repairs.map((r) => [r.service.name, r.definition.name, r.rules, r.inputs])).toEqual([
    [
      'bare',
      'enable-ha',
      ['has-ha'],
      {
        project_id: 'p1',
        service_id: 'id-bare',
        replica_count: 2,
        sync_replica_count: 0,
        ready_timeout: '30m',
      },
    ],
    [
      'no-ha',
      'enable-ha',
      ['has-ha'],
      {
        project_id: 'p1',
        service_id: 'id-no-ha',
        replica_count: 2,
        sync_replica_count: 0,
        ready_timeout: '30m',
      },
    ],
  ]);
});

test('several rules of one service repaired by one runbook make one run; a rule without repair is set apart', async () => {
  const result = await plan(
    state(`${HA_RULE}${haRule('ha-named', { expect: "service.ha_replicas.replica_count >= 1 && service.name != ''" })}  - name: has-pooler
    expect: has(service.connection_pooler)
`),
  );
  expect(result.repairs.map((r) => [r.service.name, r.rules])).toEqual([
    ['bare', ['has-ha', 'ha-named']],
    ['no-ha', ['has-ha', 'ha-named']],
  ]);
  expect(result.unrepairable.map((f) => [f.service.name, f.rule])).toEqual([['bare', 'has-pooler']]);
});

test('inputs the runbook refuses, a failing template and conflicting inputs are problems, not runs', async () => {
  const refused = await plan(state(haRule('has-ha', { select: 'name: bare', extra: 'replica_count: 7' })));
  expect(refused.repairs).toEqual([]);
  expect(refused.problems).toEqual([
    expect.objectContaining({
      code: 'REPAIR_INPUTS_INVALID',
      service: { id: 'id-bare', name: 'bare' },
      message: expect.stringContaining('replica_count'),
    }),
  ]);
  const template = await plan(
    // Bare has no VPC endpoint: the template cannot be evaluated for it.
    state(
      haRule('has-ha', {
        select: 'name: bare',
        extra: "replica_count: '${{ service.vpc_endpoint.vpc_id }}'",
      }),
    ),
  );
  expect(template.problems.map((p) => [p.code, p.message])).toEqual([
    ['REPAIR_INPUTS_INVALID', expect.stringContaining('service.vpc_endpoint.vpc_id')],
  ]);
  const conflict = await plan(
    state(`${HA_RULE}${haRule('ha-one', { select: 'name: bare', extra: 'replica_count: 1' })}`),
  );
  expect(conflict.repairs.map((r) => r.service.name)).toEqual(['no-ha']);
  expect(conflict.problems).toEqual([
    expect.objectContaining({ code: 'REPAIR_INPUTS_CONFLICT', rules: ['has-ha', 'ha-one'] }),
  ]);
});

test('repair inputs that read other variables, do not parse or name no input are refused with their positions', () => {
  const file = path.join(dir, 'bad-with.state.yaml');
  writeFileSync(
    file,
    `apiVersion: tideline/v1
kind: State
name: t
rules:
  - name: has-ha
    expect: service.ha_replicas.replica_count >= 1
    repair:
      runbook: ${RUNBOOKS}/enable-ha.yaml
      with:
        project_id: '\${{ inputs.project_id }}'
        service_id: '\${{ service.service_id + }}'
        replicas: 2
`,
  );
  const checked = loadStateFile(file, display);
  expect(checked.ok).toBe(false);
  const problems = checked.ok ? [] : checked.problems;
  expect(problems.map((p) => [p.code, p.line, p.column])).toEqual([
    ['STATE_REPAIR_INVALID', 12, 19],
    ['STATE_REPAIR_INVALID', 10, 21],
    ['STATE_REPAIR_INVALID', 11, 21],
  ]);
  expect(problems.map((p) => p.message)).toEqual([
    expect.stringMatching(/^rules\.0\.repair\.with\.replicas: enable-ha has no input `replicas`/),
    expect.stringMatching(/^rules\.0\.repair\.with\.project_id: .*unknown variable `inputs`/),
    expect.stringMatching(/^rules\.0\.repair\.with\.service_id: /),
  ]);
});
