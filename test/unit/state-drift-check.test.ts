// A state file read and checked (state/state-file.ts, state-rules.ts, drift-check.ts): its
// problems at file:line:column with stable codes, and the drift check over listed services —
// which rule each service breaks, what it expects and what was found. Over a real local cloud and
// the CLI: test/integration/cli-commands-drift.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkDrift, hasDrift } from '../../state/drift-check';
import { loadStateFile, type LoadedState } from '../../state/state-file';
import type { JsonValue } from '../../dsl/expressions';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'state', 'prod-fleet.state.yaml');
const display = (absolute: string) => path.relative(process.cwd(), absolute);

function service(name: string, environment: string, extra: Record<string, JsonValue> = {}): JsonValue {
  return { service_id: `id-${name}`, name, status: 'READY', metadata: { environment }, ...extra };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-state-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(text: string): string {
  const file = path.join(dir, `s${Math.random().toString(36).slice(2)}.state.yaml`);
  writeFileSync(file, text);
  return file;
}

function loaded(): LoadedState {
  const checked = loadStateFile(FIXTURE, display);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return checked.state;
}

describe('the drift check', () => {
  const fleet = [
    service('good', 'PROD', {
      ha_replicas: { replica_count: 1 },
      connection_pooler: { endpoint: { host: 'h', port: 6432 } },
    }),
    service('no-ha', 'PROD', {
      ha_replicas: { replica_count: 0 },
      connection_pooler: { endpoint: { host: 'h', port: 6432 } },
    }),
    service('no-pooler', 'PROD', { ha_replicas: { replica_count: 2 } }),
    service('dev-bare', 'DEV'),
  ];

  test('lists exactly the services that break a rule, with what was expected and found', async () => {
    const report = await checkDrift(loaded(), 'p1', async (projectId) => (projectId === 'p1' ? fleet : []));
    expect(Object.values(report.checked).map((services) => services.map((s) => s.name))).toEqual([
      ['good', 'no-ha', 'no-pooler'],
      ['good', 'no-ha', 'no-pooler'],
    ]);
    expect(report.findings).toEqual([
      {
        rule: 'prod-has-ha',
        severity: 'error',
        service: { id: 'id-no-ha', name: 'no-ha' },
        expected: expect.stringContaining('service.ha_replicas.replica_count >= 1'),
        found: { ha_replicas: { replica_count: 0 }, 'ha_replicas.replica_count': 0 },
        repair: '../../../runbooks/enable-ha.yaml',
      },
      {
        rule: 'prod-has-pooler',
        severity: 'warning',
        service: { id: 'id-no-pooler', name: 'no-pooler' },
        expected: 'has(service.connection_pooler) && has(service.connection_pooler.endpoint)',
        found: { connection_pooler: null, 'connection_pooler.endpoint': null },
        repair: '../../../runbooks/enable-pooler.yaml',
      },
    ]);
    expect(hasDrift(report)).toBe(true);
  });

  test('a clean fleet has no findings, and info findings are not drift', async () => {
    const clean = await checkDrift(loaded(), 'p1', async () => [fleet[0]!, fleet[3]!]);
    expect(clean.findings).toEqual([]);
    expect(hasDrift(clean)).toBe(false);
    const file = write(`apiVersion: tideline/v1
kind: State
name: notes
rules:
  - name: named-well
    expect: service.name.startsWith('svc-')
    severity: info
`);
    const checked = loadStateFile(file, display);
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const report = await checkDrift(checked.state, 'p1', async () => fleet);
    expect(report.findings).toHaveLength(4);
    expect(hasDrift(report)).toBe(false);
  });

  test('an expectation that cannot be evaluated for a service breaks the rule for it, and says why', async () => {
    const file = write(`apiVersion: tideline/v1
kind: State
name: unguarded
rules:
  - name: ha
    expect: service.ha_replicas.replica_count >= 1
`);
    const checked = loadStateFile(file, display);
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const report = await checkDrift(checked.state, 'p1', async () => [fleet[3]!]);
    expect(report.findings).toEqual([
      expect.objectContaining({
        rule: 'ha',
        service: { id: 'id-dev-bare', name: 'dev-bare' },
        error: expect.stringMatching(/ha_replicas/),
      }),
    ]);
  });
});

describe('a state file with problems', () => {
  test.each([
    [
      'an unknown field',
      'rules:\n  - name: a\n    expect: "true"\n    sevrity: error\n',
      /^rules\.0: Unrecognized key: "sevrity"/,
      9,
      5,
    ],
    [
      'a type error',
      'rules:\n  - name: a\n    expect: service.name > 3\n',
      /^rules\.0\.expect: `service\.name > 3`: /,
      8,
      13,
    ],
    [
      'a variable other than service',
      'rules:\n  - name: a\n    expect: inputs.x == 1\n',
      /unknown variable `inputs`/,
      8,
      13,
    ],
    [
      'an expectation that is no condition',
      'rules:\n  - name: a\n    expect: service.name\n',
      /gives string, but an expectation must be true or false/,
      8,
      13,
    ],
    [
      'a template in a selector',
      'rules:\n  - name: a\n    select: { name: "${{ inputs.x }}" }\n    expect: "true"\n',
      /plain values, not/,
      8,
      13,
    ],
    [
      'a missing repair runbook',
      'rules:\n  - name: a\n    expect: "true"\n    repair: { runbook: nowhere.yaml }\n',
      /repair\.runbook: nowhere\.yaml/,
      9,
      24,
    ],
  ])('%s', (_what, rules, message, line, column) => {
    const file = write(
      `apiVersion: tideline/v1\nkind: State\nname: broken\ndescription: d\nproject_id: p\n${rules}`,
    );
    const checked = loadStateFile(file, display);
    expect(checked.ok).toBe(false);
    const [first] = checked.ok ? [] : checked.problems;
    expect(first?.message).toMatch(message);
    expect({ line: first?.line, column: first?.column }).toEqual({ line, column });
  });
});
