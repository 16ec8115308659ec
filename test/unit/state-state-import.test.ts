// `tideline state import`'s generation: per service one rule per fact it holds now; the file
// reads back as a valid state file, the drift check on the same services is clean, and a change
// to one fact breaks exactly that fact's rule. Selector flags pick the services; services of one
// name share the facts they agree on; nothing secret is copied.
import type { JsonValue } from '../../dsl/expressions';
import { checkDrift } from '../../state/drift-check';
import { loadStateText } from '../../state/state-file';
import { importState, stateFileText } from '../../state/state-import';

const PROJECT = 'p1';

const orders = {
  service_id: 's-orders',
  name: 'orders',
  region_code: 'us-east-1',
  status: 'READY',
  metadata: { environment: 'PROD' },
  ha_replicas: { replica_count: 1, sync_replica_count: 0 },
  connection_pooler: { endpoint: { host: 'pool.local', port: 6432 } },
  vpc_endpoint: { host: 'vpc.local', port: 5432, vpc_id: '42' },
  resources: [{ id: 'r1', spec: { cpu_millis: 2000, memory_gbs: 8 } }],
  initial_password: 'hunter2-secret',
};
const scratch = {
  service_id: 's-scratch',
  name: 'scratch',
  region_code: 'us-east-1',
  status: 'READY',
  metadata: { environment: 'DEV' },
  resources: [{ id: 'r2', spec: { cpu_millis: 1000, memory_gbs: 4 } }],
};

function loaded(services: JsonValue[], select = {}) {
  const state = importState(services, { projectId: PROJECT, select, name: 'fleet' });
  const text = stateFileText(state);
  const check = loadStateText(text, '/tmp/fleet.state.yaml', (file) => file);
  if (!check.ok) throw new Error(JSON.stringify(check.problems));
  return { state, text, loaded: check.state };
}

const list = (services: JsonValue[]) => () => Promise.resolve(services);

test('one rule per fact and service; the drift check on the same fleet is clean', async () => {
  const { state, text, loaded: file } = loaded([orders, scratch]);
  expect(state.rules.map((rule) => rule.name)).toEqual([
    'orders-environment',
    'orders-region',
    'orders-ha',
    'orders-pooler',
    'orders-vpc',
    'orders-size',
    'scratch-environment',
    'scratch-region',
    'scratch-ha',
    'scratch-pooler',
    'scratch-vpc',
    'scratch-size',
  ]);
  expect(
    state.rules.every(
      (rule) => JSON.stringify(rule.select) === JSON.stringify({ name: rule.name.split('-')[0] }),
    ),
  ).toBe(true);
  expect(text).toMatch(/^apiVersion: tideline\/v1\nkind: State\nname: fleet\n/);
  expect(text).not.toContain('hunter2');
  expect(text).not.toContain('pool.local');
  const report = await checkDrift(file, PROJECT, list([orders, scratch]));
  expect(report.findings).toEqual([]);
  expect(Object.values(report.checked).flat()).toHaveLength(12);
});

test('a name with wildcards is written escaped: it selects only its own service', async () => {
  const star = { ...scratch, service_id: 's-star', name: 'web*' };
  const web1 = { ...orders, service_id: 's-web1', name: 'web-1' };
  const { state, loaded: file } = loaded([star, web1]);
  expect(new Set(state.rules.map((rule) => rule.select.name))).toEqual(new Set(['web\\*', 'web-1']));
  const report = await checkDrift(file, PROJECT, list([star, web1]));
  expect(report.findings).toEqual([]);
  expect(report.checked['web-environment']).toEqual([{ id: 's-star', name: 'web*' }]);
});

test('a changed fact breaks that fact’s rule only', async () => {
  const { loaded: file } = loaded([orders, scratch]);
  const changed = [
    { ...orders, ha_replicas: { replica_count: 0, sync_replica_count: 0 } },
    { ...scratch, connection_pooler: { endpoint: { host: 'p', port: 1 } } },
  ];
  const report = await checkDrift(file, PROJECT, list(changed));
  expect(report.findings.map((f) => [f.service.name, f.rule])).toEqual([
    ['orders', 'orders-ha'],
    ['scratch', 'scratch-pooler'],
  ]);
});

test('the selector picks the services; same-named services share only what they agree on', () => {
  expect(
    loaded([orders, scratch], { environment: 'PROD' }).state.rules.every((r) => r.name.startsWith('orders-')),
  ).toBe(true);
  const twin = { ...orders, service_id: 's-orders-2', ha_replicas: { replica_count: 2 } };
  const kinds = loaded([orders, twin]).state.rules.map((rule) => rule.name);
  expect(kinds).toEqual([
    'orders-environment',
    'orders-region',
    'orders-pooler',
    'orders-vpc',
    'orders-size',
  ]);
  expect(loaded([{ ...scratch, name: '9-Lives DB' }]).state.rules[0]?.name).toBe(
    'svc-9-lives-db-environment',
  );
});
