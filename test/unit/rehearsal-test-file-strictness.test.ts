// Strict test files: what a case names must exist — operations in the catalogue, steps in its
// runbook (as the engine keys them), inputs it reads in its expectations — checked when the file
// loads; and what it expects of the cloud must be able to fail — an `absent` name existed, nothing
// else is left with `nothingElse`, a password is compared without being shown. Every error names
// the test file's line and column.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunReport } from '../../contract/run-messages';
import { mismatchText } from '../../cli/output/test-report';
import { resolveReferences } from '../../rehearsal/cloud-references';
import { unmetExpectations, type Outcome } from '../../rehearsal/expectations';
import { placeMismatch } from '../../rehearsal/mismatch-position';
import { loadTestFile, type LoadedCase, type TestFileProblem } from '../../rehearsal/test-file-loader';

const runbookDir = path.join(__dirname, '..', '..', 'runbooks');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-strict-'));
  for (const name of ['provision-production-service', 'fork-and-promote', 'start-dev-services'])
    writeFileSync(
      path.join(dir, `${name}.yaml`),
      readFileSync(path.join(runbookDir, `${name}.yaml`), 'utf8'),
    );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const head = [
  'cases:',
  '  - name: provisions',
  '    runbook: provision-production-service.yaml',
  '    cloud:',
  '      vpcs: [{ name: main }]',
  '    inputs:',
  '      project_id: ${{ cloud.project_id }}',
  '      name: orders',
  '      vpc_id: ${{ cloud.vpcs.main.id }}',
];

function load(lines: string[]): ReturnType<typeof loadTestFile> {
  const file = path.join(dir, 'strict.test.yaml');
  writeFileSync(file, lines.join('\n'));
  return loadTestFile(file, (absolute) => path.basename(absolute));
}

function problemsOf(lines: string[]): TestFileProblem[] {
  const loaded = load(lines);
  if (loaded.ok) throw new Error('expected problems');
  return loaded.problems;
}

function caseOf(lines: string[]): LoadedCase {
  const loaded = load(lines);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const [first] = loaded.cases;
  if (first === undefined) throw new Error('no case');
  return first;
}

describe('when the file loads', () => {
  it('refuses a count of an operation the catalogue does not have, suggesting the one meant', () => {
    const problems = problemsOf([
      ...head,
      '    expect:',
      '      status: succeeded',
      '      calls: { service.create: 1, service.delet: 0 }',
    ]);
    expect(problems).toEqual([
      {
        code: 'TEST_OPERATION_UNKNOWN',
        file: 'strict.test.yaml',
        line: 12,
        column: 35,
        message: 'expect.calls: "service.delet" is not a Cloud API operation, so it would always count 0',
        hint: 'did you mean `service.delete`?',
      },
    ]);
  });

  it('refuses an expected step the runbook does not have, and takes keys as the engine names them', () => {
    const problems = problemsOf([
      ...head,
      '    expect:',
      '      status: failed',
      '      failure: { step: atach }',
      '      steps:',
      '        create/undo.delete_service: done',
      '        create/undo.delete_servce: done',
      '        service_gone: done',
    ]);
    expect(problems.map((p) => [p.code, p.line, p.column, p.message, p.hint])).toEqual([
      [
        'TEST_REFERENCE_UNKNOWN',
        15,
        9,
        'expect.steps.create/undo.delete_servce: runbook provision-production-service.yaml has no step "create/undo.delete_servce"',
        'did you mean `create/undo.delete_service`?',
      ],
      [
        'TEST_REFERENCE_UNKNOWN',
        12,
        24,
        'expect.failure.step: runbook provision-production-service.yaml has no step "atach"',
        'did you mean `attach`?',
      ],
    ]);
    // An iteration's step is named with its index; a step outside the foreach is not.
    const foreach = (key: string) => [
      'cases:',
      '  - name: starts',
      '    runbook: start-dev-services.yaml',
      '    inputs: { project_id: p }',
      '    expect:',
      '      status: succeeded',
      `      steps: { '${key}': done }`,
    ];
    expect(load(foreach('start_each[1].start/undo.paused_again')).ok).toBe(true);
    expect(problemsOf(foreach('start_each[1].paused_again'))).toEqual([
      expect.objectContaining({ code: 'TEST_REFERENCE_UNKNOWN', line: 7, column: 16 }),
    ]);
  });

  it('refuses an approval of a step that is not an approval step of the runbook', () => {
    const approval = (step: string) => [
      'cases:',
      '  - name: forks',
      '    runbook: fork-and-promote.yaml',
      '    inputs: { project_id: p, service_id: s, require_approval: true }',
      '    approvals:',
      `      - { step: ${step}, decision: approve }`,
      '    expect:',
      '      status: succeeded',
    ];
    expect(load(approval('approval')).ok).toBe(true);
    expect(problemsOf(approval('aproval'))).toEqual([
      expect.objectContaining({
        code: 'TEST_REFERENCE_UNKNOWN',
        line: 6,
        column: 17,
        message: 'approvals[0].step: runbook fork-and-promote.yaml has no approval step "aproval"',
        hint: 'did you mean `approval`?',
      }),
    ]);
    expect(problemsOf(approval('fork'))).toEqual([
      expect.objectContaining({
        line: 6,
        message: 'approvals[0].step: step "fork" of runbook fork-and-promote.yaml is not an approval step',
      }),
    ]);
  });

  it("takes a policy's approval of a step, as the worker asks for it", () => {
    const fixtures = path.join(__dirname, '..', 'fixtures', 'governance');
    const loaded = loadTestFile(path.join(fixtures, 'policy-approvals.test.yaml'), path.basename);
    expect(loaded.ok ? [] : loaded.problems).toEqual([]);
  });

  it('refuses an expectation that reads an input the case does not give', () => {
    const problems = problemsOf([
      ...head,
      '    expect:',
      '      status: succeeded',
      "      cloud: { services: { orders: { password: '${{ inputs.pasword }}' } } }",
    ]);
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'TEST_REFERENCE_UNKNOWN',
        line: 12,
        column: 48,
        message: '${{ inputs.pasword }}: this case gives no input "pasword"',
      }),
    ]);
  });
});

describe('when the case has run', () => {
  const report: RunReport = {
    runbook: 'provision-production-service',
    status: 'succeeded',
    startedAt: 0,
    steps: [],
    outputs: {},
    secretOutputs: [],
  };
  const ids = { projectId: 'p1', services: new Map<string, string>(), vpcs: new Map([['main', 'v1']]) };
  const outcome: Outcome = {
    report,
    calls: {},
    sequence: [],
    services: [
      { name: 'orders', service_id: 's1', status: 'READY' },
      { name: 'orders-tmp', service_id: 's2', status: 'READY' },
    ],
    vpcs: [{ name: 'main', id: 'v1' }],
    secrets: [],
    existed: {
      services: new Set(['orders', 'orders-tmp', 'scratch']),
      vpcs: new Set(['main']),
      replicaSets: new Map(),
      peerings: new Map(),
    },
    passwordMatches: (serviceId, candidate) => serviceId === 's1' && candidate === 'Right-Password-1',
  };
  const mismatchesOf = (testCase: LoadedCase) =>
    unmetExpectations(resolveReferences(testCase.expect, ids, testCase.inputs), outcome, ids).map((m) =>
      placeMismatch(testCase, m, 'expect'),
    );

  it('counts an absent name that never existed as a mismatch', () => {
    const testCase = caseOf([
      ...head,
      '    expect:',
      '      status: succeeded',
      '      cloud:',
      '        services: { scratch: absent, orders-tpm: absent }',
    ]);
    expect(mismatchesOf(testCase)).toEqual([
      {
        what: 'cloud.services.orders-tpm',
        expected: 'absent (a service that existed during the case)',
        actual: 'no service of this name existed at any point of the case',
        at: { line: 13, column: 50 },
      },
    ]);
  });

  it('with nothingElse, counts whatever the case does not name as a mismatch', () => {
    const testCase = caseOf([
      ...head,
      '    expect:',
      '      status: succeeded',
      '      cloud:',
      '        nothingElse: true',
      '        services: { orders: { status: READY } }',
      '        vpcs: { main: present }',
    ]);
    expect(mismatchesOf(testCase)).toEqual([
      {
        what: 'cloud.services.orders-tmp',
        expected: 'nothing else (cloud.nothingElse)',
        actual: 'READY',
        at: { line: 14, column: 19 },
      },
    ]);
  });

  it('compares a password without showing it or the value expected', () => {
    const lines = (password: string) => [
      ...head.map((line) =>
        line === '      name: orders' ? `      name: orders\n      new_password: ${password}` : line,
      ),
      '    expect:',
      '      status: succeeded',
      "      cloud: { services: { orders: { password: '${{ inputs.new_password }}' } } }",
    ];
    // The runbook has no such input: the case's inputs are checked against it, so read another file.
    const provision = path.join(dir, 'provision-production-service.yaml');
    writeFileSync(
      provision,
      readFileSync(provision, 'utf8').replace(
        'inputs:\n',
        'inputs:\n  new_password:\n    type: string\n    secret: true\n    required: false\n',
      ),
    );
    expect(mismatchesOf(caseOf(lines('Right-Password-1')))).toEqual([]);
    const [mismatch, ...rest] = mismatchesOf(caseOf(lines('Wrong-Password-2')));
    expect(rest).toEqual([]);
    expect(mismatch).toEqual({
      what: 'cloud.services.orders.password',
      expected: '••••••',
      actual: '••••••',
      message: 'password differs from the expected value',
      at: { line: 13, column: 48 },
    });
    const shown = mismatchText(mismatch!, 'strict.test.yaml', String);
    expect(shown).toBe(
      'strict.test.yaml:13:48: cloud.services.orders.password: password differs from the expected value',
    );
    expect(JSON.stringify(mismatch)).not.toMatch(/Password-/);
  });
});
