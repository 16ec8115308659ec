// Runbook test files (`*.test.yaml`): the committed JSON Schema equals what the zod schema
// generates and accepts the shipped test files; the loader accepts them and the docs' example, and
// reports each kind of mistake at file:line:column with its code.
// Regenerate the schema: UPDATE_SCHEMA=1 npx jest test/unit/rehearsal-test-file-loader.test.ts
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { loadTestFile, type TestFileProblem } from '../../rehearsal/test-file-loader';
import { RUNBOOK_TEST_SCHEMA_FILE, runbookTestJsonSchemaText } from '../../rehearsal/test-file-schema';

const root = path.join(__dirname, '..', '..');
const schemaPath = path.join(root, RUNBOOK_TEST_SCHEMA_FILE);
const runbookDir = path.join(root, 'runbooks');
const shipped = readdirSync(runbookDir).filter((f) => f.endsWith('.test.yaml'));
const display = (absolute: string) => path.relative(root, absolute);

if (process.env.UPDATE_SCHEMA === '1') writeFileSync(schemaPath, runbookTestJsonSchemaText());

describe('runbook test file JSON Schema', () => {
  it('is committed in sync with the zod schema', () => {
    if (readFileSync(schemaPath, 'utf8') !== runbookTestJsonSchemaText()) {
      throw new Error(
        `${RUNBOOK_TEST_SCHEMA_FILE} is stale; run: UPDATE_SCHEMA=1 npx jest test/unit/rehearsal-test-file-loader.test.ts`,
      );
    }
  });

  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')) as object);

  it.each(shipped)('accepts the shipped test file %s', (file) => {
    const valid = validate(parse(readFileSync(path.join(runbookDir, file), 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('rejects an unknown field and a case without expectations', () => {
    const base = { name: 'x', runbook: 'x.yaml', expect: { status: 'succeeded' } };
    expect(validate({ cases: [base] })).toBe(true);
    expect(validate({ cases: [{ ...base, expcet: {} }] })).toBe(false);
    expect(validate({ cases: [{ name: 'x', runbook: 'x.yaml' }] })).toBe(false);
  });
});

describe('loading test files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-test-file-'));
    writeFileSync(
      path.join(dir, 'provision.yaml'),
      readFileSync(path.join(runbookDir, 'provision-production-service.yaml'), 'utf8'),
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const problemsOf = (text: string): TestFileProblem[] => {
    const file = path.join(dir, 'broken.test.yaml');
    writeFileSync(file, text);
    const loaded = loadTestFile(file, (absolute) => path.basename(absolute));
    if (loaded.ok) throw new Error('expected problems');
    return loaded.problems;
  };

  const valid = [
    'cases:',
    '  - name: provisions',
    '    runbook: provision.yaml',
    '    cloud:',
    '      vpcs: [{ name: main }]',
    '    inputs:',
    '      project_id: ${{ cloud.project_id }}',
    '      name: orders',
    '      vpc_id: ${{ cloud.vpcs.main.id }}',
    '    expect:',
    '      status: succeeded',
  ];

  it.each(shipped)('loads the shipped test file %s with its runbooks', (file) => {
    const loaded = loadTestFile(path.join(runbookDir, file), display);
    expect(loaded.ok ? [] : loaded.problems).toEqual([]);
    if (loaded.ok) for (const c of loaded.cases) expect(c.definition.steps.length).toBeGreaterThan(0);
  });

  it('loads a valid file, with defaults filled in', () => {
    const file = path.join(dir, 'ok.test.yaml');
    writeFileSync(file, valid.join('\n'));
    const loaded = loadTestFile(file, (absolute) => path.basename(absolute));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    expect(loaded.cases[0]).toMatchObject({ file: 'ok.test.yaml', faults: [], approvals: [] });
  });

  it('points at an unknown field', () => {
    const lines = [...valid];
    lines.splice(10, 0, '      stauts: failed');
    const [problem, ...rest] = problemsOf(lines.join('\n'));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({
      code: 'TEST_FILE_INVALID',
      file: 'broken.test.yaml',
      line: 11,
      column: 7,
    });
    expect(problem?.message).toContain('stauts');
  });

  it('checks a fault with the local cloud rules', () => {
    const lines = [
      ...valid,
      '    faults:',
      '      - { operation: service.enablePooler, kind: outcome, outcome: peeringFailed }',
    ];
    const problems = problemsOf(lines.join('\n'));
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'TEST_FILE_INVALID',
        line: 13,
        message: expect.stringContaining('peeringFailed'),
      }),
    ]);
  });

  it('names an unknown operation', () => {
    const lines = [...valid, '    faults:', '      - { operation: service.craete }'];
    expect(problemsOf(lines.join('\n'))).toEqual([
      expect.objectContaining({
        code: 'TEST_FILE_INVALID',
        line: 13,
        message: expect.stringContaining('operation'),
      }),
    ]);
  });

  it('refuses a reference to something the case cloud does not hold', () => {
    const lines = valid.map((line) => line.replace('cloud.vpcs.main.id', 'cloud.vpcs.other.id'));
    expect(problemsOf(lines.join('\n'))).toEqual([
      expect.objectContaining({
        code: 'TEST_REFERENCE_UNKNOWN',
        line: 9,
        column: 15,
        message: expect.stringContaining('"other"'),
      }),
    ]);
  });

  it('refuses a cancel that waits for a step the runbook does not have', () => {
    const lines = [...valid, '    cancel: { step: polaris, status: running }'];
    expect(problemsOf(lines.join('\n'))).toEqual([
      expect.objectContaining({
        code: 'TEST_REFERENCE_UNKNOWN',
        line: 12,
        column: 21,
        message: 'cancel.step: runbook provision.yaml has no step "polaris"',
      }),
    ]);
    // A step by its id, or by its key as the engine names it: a compensation step.
    for (const step of ['create/undo.delete_service', 'delete_service']) {
      const file = path.join(dir, 'cancel.test.yaml');
      writeFileSync(file, [...valid, `    cancel: { step: '${step}' }`].join('\n'));
      const loaded = loadTestFile(file, (absolute) => path.basename(absolute));
      expect(loaded.ok ? loaded.cases[0]?.cancel : loaded.problems).toEqual({
        step,
        status: 'done',
        holdCloud: false,
      });
    }
  });

  it('reads operator actions on holds, and refuses one for a step the runbook does not have', () => {
    const file = path.join(dir, 'held.test.yaml');
    writeFileSync(
      file,
      [
        ...valid,
        '    whenHeld:',
        '      - { action: retry, step: pooler, fixFaults: true, with: { project_id: "${{ cloud.project_id }}" } }',
        '      - { action: skip, step: prod, output: { message: tagged by hand } }',
        '      - { action: rollback }',
      ].join('\n'),
    );
    const loaded = loadTestFile(file, (absolute) => path.basename(absolute));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    expect(loaded.cases[0]?.whenHeld).toEqual([
      {
        action: 'retry',
        step: 'pooler',
        fixFaults: true,
        with: { project_id: '${{ cloud.project_id }}' },
        by: 'tideline-test',
      },
      {
        action: 'skip',
        step: 'prod',
        fixFaults: false,
        output: { message: 'tagged by hand' },
        by: 'tideline-test',
      },
      { action: 'rollback', fixFaults: false, by: 'tideline-test' },
    ]);

    expect(
      problemsOf([...valid, '    whenHeld:', '      - { action: retry, step: poler }'].join('\n')),
    ).toEqual([
      expect.objectContaining({
        code: 'TEST_REFERENCE_UNKNOWN',
        line: 13,
        message: 'whenHeld[0].step: runbook provision.yaml has no step "poler"',
      }),
    ]);
    expect(
      problemsOf([...valid, '    whenHeld:', '      - { action: rollback, output: 1 }'].join('\n')),
    ).toEqual([
      expect.objectContaining({
        code: 'TEST_FILE_INVALID',
        line: 13,
        message: 'cases.0.whenHeld.0.output: only a skip takes output',
      }),
    ]);
    expect(
      problemsOf(
        [
          ...valid,
          '    whenHeld:',
          '      - { action: retry, with: { x: "${{ cloud.vpcs.nope.id }}" } }',
        ].join('\n'),
      ),
    ).toEqual([expect.objectContaining({ code: 'TEST_REFERENCE_UNKNOWN', line: 13 })]);
  });

  it('takes a delayed approval up to its limit, and a starting pooler and peerings', () => {
    const withApproval = (after: string) =>
      [...valid, '    approvals:', `      - { step: approve, decision: approve, after: ${after} }`].join(
        '\n',
      );
    expect(problemsOf(withApproval('11m'))).toEqual([
      expect.objectContaining({
        code: 'TEST_FILE_INVALID',
        line: 13,
        message: 'cases.0.approvals.0.after: must be at most 10m: a case runs on real time',
      }),
    ]);
    expect(problemsOf(withApproval('soon'))).toEqual([
      expect.objectContaining({ code: 'TEST_FILE_INVALID', message: expect.stringContaining('duration') }),
    ]);
    const file = path.join(dir, 'start.test.yaml');
    const lines = valid.map((line) =>
      line === '      vpcs: [{ name: main }]'
        ? '      vpcs: [{ name: main, peerings: [{ peer_account_id: "1", peer_vpc_id: vpc-1 }] }]\n      services: [{ name: shop, pooler: true }]'
        : line,
    );
    writeFileSync(file, lines.join('\n'));
    const loaded = loadTestFile(file, (absolute) => path.basename(absolute));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    expect(loaded.cases[0]?.cloud).toMatchObject({
      vpcs: [
        {
          name: 'main',
          peerings: [{ peer_account_id: '1', peer_vpc_id: 'vpc-1', peer_region_code: 'us-east-1' }],
        },
      ],
      services: [{ name: 'shop', pooler: true }],
    });
  });

  it('refuses a starting HA layout the Cloud API would refuse, and fills in replica sets', () => {
    const layout = (ha: string) => {
      const lines = [...valid];
      lines.splice(
        5,
        0,
        `      services: [{ name: shop, ha_replicas: ${ha}, replica_sets: [{ name: reports }] }]`,
      );
      return lines.join('\n');
    };
    expect(problemsOf(layout('{ replica_count: 1, sync_replica_count: 1 }'))).toEqual([
      expect.objectContaining({
        code: 'TEST_FILE_INVALID',
        line: 6,
        column: 85,
        message:
          'cases.0.cloud.services.0.ha_replicas.sync_replica_count: a synchronous replica needs replica_count 2',
      }),
    ]);
    const file = path.join(dir, 'ha.test.yaml');
    writeFileSync(file, layout('{ replica_count: 1 }'));
    const loaded = loadTestFile(file, (absolute) => path.basename(absolute));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    expect(loaded.cases[0]?.cloud.services[0]).toMatchObject({
      ha_replicas: { replica_count: 1, sync_replica_count: 0 },
      replica_sets: [{ name: 'reports', nodes: 1, cpu_millis: '1000' }],
    });
  });

  it("checks the inputs against the runbook's declarations", () => {
    const lines = valid.map((line) => line.replace('      name: orders', '      nmae: orders'));
    const codes = problemsOf(lines.join('\n')).map((p) => [p.code, p.line, p.message]);
    expect(codes).toEqual(expect.arrayContaining([['TEST_INPUT_INVALID', 8, 'unknown input `nmae`']]));
  });

  it('reports an invalid runbook at the case that names it', () => {
    writeFileSync(path.join(dir, 'provision.yaml'), 'apiVersion: tideline/v1\nname: x\nsteps: []\n');
    const [problem] = problemsOf(valid.join('\n'));
    expect(problem).toMatchObject({ code: 'TEST_RUNBOOK_INVALID', line: 3, column: 14 });
    expect(problem?.message).toMatch(/^runbook provision.yaml: .*provision\.yaml/);
  });

  it('reports YAML syntax errors with their position', () => {
    const [problem] = problemsOf('cases:\n  - name: x\n   runbook: [\n');
    expect(problem).toMatchObject({ code: 'TEST_FILE_YAML', file: 'broken.test.yaml' });
    expect(problem?.line).toBeGreaterThanOrEqual(2);
  });

  it('accepts the worked example of docs/testing.md', () => {
    const docs = readFileSync(path.join(root, 'docs', 'testing.md'), 'utf8');
    const example = /<!-- example: partial: a runbook test file[^\n]*\n+```yaml\n([\s\S]*?)```/.exec(
      docs,
    )?.[1];
    if (example === undefined) throw new Error('docs/testing.md has no runbook test file example');
    // Read as if it sat next to the shipped runbooks it names.
    for (const runbook of readdirSync(runbookDir).filter((f) => !f.endsWith('.test.yaml')))
      writeFileSync(path.join(dir, runbook), readFileSync(path.join(runbookDir, runbook), 'utf8'));
    writeFileSync(path.join(dir, 'example.test.yaml'), example);
    const loaded = loadTestFile(path.join(dir, 'example.test.yaml'), display);
    expect(loaded.ok ? [] : loaded.problems).toEqual([]);
  });
});
