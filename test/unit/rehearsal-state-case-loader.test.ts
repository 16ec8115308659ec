// State cases of a test file (`state:` instead of `runbook:`): loaded with their state file, and
// every name they use checked before anything runs — a rule the state file lacks, a service the
// case's cloud lacks, an operation that is not one, a state file that does not load, a case that
// reconciles without saying what it expects after — each at file:line:column with its code.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadTestFile, type TestFileCheck } from '../../rehearsal/test-file-loader';

const runbookDir = path.join(__dirname, '..', '..', 'runbooks');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-state-case-'));
  for (const file of ['prod-fleet.state.yaml', 'enable-ha.yaml', 'enable-pooler.yaml'])
    copyFileSync(path.join(runbookDir, file), path.join(dir, file));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function load(lines: string[]): TestFileCheck {
  const file = path.join(dir, 'fleet.test.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return loadTestFile(file, (absolute) => path.basename(absolute));
}

const problemsOf = (lines: string[]) => {
  const loaded = load(lines);
  if (loaded.ok) throw new Error('expected problems');
  return loaded.problems.map(
    (p) => `${p.line}:${p.column} ${p.code} ${p.message}${p.hint ? ` (${p.hint})` : ''}`,
  );
};

const head = [
  'cases:',
  '  - name: drifted',
  '    state: prod-fleet.state.yaml',
  '    cloud:',
  '      services:',
  '        - { name: billing, environment: PROD, pooler: true }',
];

test('a state case loads beside a runbook case, with its state file and its findings', () => {
  const loaded = load([
    ...head,
    '    findings:',
    '      - { service: billing, rule: prod-has-ha }',
    '    reconcile: true',
    '    expect:',
    '      findings: []',
    '      calls: { service.setHA: 1 }',
    '      cloud: { services: { billing: { ha_replicas: { replica_count: 1 } } } }',
    '  - name: a runbook case',
    '    runbook: enable-pooler.yaml',
    '    inputs: { project_id: x, service_id: y }',
    '    expect: { status: succeeded }',
  ]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  expect(loaded.cases.map((c) => c.name)).toEqual(['a runbook case']);
  const [stateCase] = loaded.stateCases;
  expect(stateCase?.loadedState.rules.map((rule) => rule.name)).toEqual(['prod-has-ha', 'prod-has-pooler']);
  expect(stateCase?.findings).toEqual([{ service: 'billing', rule: 'prod-has-ha' }]);
  expect(stateCase?.reconcile).toBe(true);
  expect(stateCase?.locate(['findings', 0])).toEqual({ line: 8, column: 9 });
});

test('a rule the state file lacks, a service the cloud lacks and an unknown operation are named with a suggestion', () => {
  expect(
    problemsOf([
      ...head,
      '    findings:',
      '      - { service: biling, rule: prod-has-ha }',
      '    reconcile: true',
      '    expect:',
      '      findings: [{ service: billing, rule: prod-has-poolr }]',
      '      calls: { service.setHa: 1 }',
      "      cloud: { services: { billing: { password: '${{ cloud.vpcs.main.id }}' } } }",
    ]),
  ).toEqual([
    `8:20 TEST_REFERENCE_UNKNOWN findings[0].service: this case's cloud has no service named "biling" (did you mean \`billing\`?)`,
    '11:44 TEST_REFERENCE_UNKNOWN expect.findings[0].rule: state file prod-fleet.state.yaml has no rule "prod-has-poolr" (did you mean `prod-has-pooler`?)',
    '12:16 TEST_OPERATION_UNKNOWN expect.calls: "service.setHa" is not a Cloud API operation, so it would always count 0 (did you mean `service.setHA`?)',
    `13:49 TEST_REFERENCE_UNKNOWN \${{ cloud.vpcs.main.id }}: this case's cloud has no VPC named "main" (name a service or VPC of the case's cloud)`,
  ]);
});

test('a state file that does not load is a problem of the case, with the first of its own', () => {
  writeFileSync(
    path.join(dir, 'broken.state.yaml'),
    'apiVersion: tideline/v1\nkind: State\nname: broken\nrules:\n  - name: r\n    expect: service.nme == "x"\n',
  );
  expect(
    problemsOf([
      'cases:',
      '  - { name: broken, state: broken.state.yaml, findings: [] }',
      '  - { name: missing, state: nope.state.yaml, findings: [] }',
    ]),
  ).toEqual([
    '2:28 TEST_STATE_INVALID state broken.state.yaml: broken.state.yaml:6:13: rules.0.expect: `service.nme`: No such key: nme (tideline drift shows every problem of the state file)',
    '3:29 TEST_STATE_INVALID state nope.state.yaml: nope.state.yaml:1:1: state file not found (tideline drift shows every problem of the state file)',
  ]);
});

test("the schema's problems of a state case are told as a state case's, not as an invalid case", () => {
  expect(
    problemsOf([
      ...head,
      '    findings: []',
      '    inputs: {}',
      '  - name: reconciles without expect',
      '    state: prod-fleet.state.yaml',
      '    findings: []',
      '    reconcile: true',
      '  - name: expects without reconcile',
      '    state: prod-fleet.state.yaml',
      '    findings: []',
      '    expect: { findings: [] }',
    ]),
  ).toEqual([
    '8:5 TEST_FILE_INVALID cases.0: Unrecognized key: "inputs"',
    '12:16 TEST_FILE_INVALID cases.1.reconcile: a case that reconciles says what it expects after: expect.findings (typically [])',
    '16:13 TEST_FILE_INVALID cases.2.expect: only a case with reconcile: true has an after to expect; the findings before are `findings`',
  ]);
});

test("loads the state case of docs/testing.md beside the shipped state file, where its failure's lines point", () => {
  const docs = readFileSync(path.join(__dirname, '..', '..', 'docs', 'testing.md'), 'utf8');
  const example = /<!-- example: partial: a state case[^\n]*\n+```yaml\n([\s\S]*?)```/.exec(docs)?.[1];
  if (example === undefined) throw new Error('docs/testing.md has no state case example');
  const loaded = load(example.trimEnd().split('\n'));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const [stateCase] = loaded.stateCases;
  expect(stateCase?.reconcile).toBe(true);
  // The failure the page shows names these places.
  expect(docs).toContain(`fleet.test.yaml:11:9: findings[0]`);
  expect(stateCase?.locate(['findings', 0])).toEqual({ line: 11, column: 9 });
  expect(stateCase?.locate(['findings'])).toEqual({ line: 11, column: 7 });
});
