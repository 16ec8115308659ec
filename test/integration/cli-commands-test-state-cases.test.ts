// State cases through the built CLI: `tideline test` on a folder holding the shipped state file,
// its repair runbooks and three test files. The case that reconciles passes (the drift found, both
// repairs run, nothing found after, the cloud as repaired); one whose findings are wrong fails
// naming each difference at its file:line:column; one whose worker's policy denies a repair fails
// at `reconcile` with the refusal, the service left as it was. JUnit has a testcase per case.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTideline, type CliResult } from '../helpers/cli-process';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const RUNBOOKS = path.join(REPO_ROOT, 'runbooks');

const CLOUD = [
  '    cloud:',
  '      services:',
  '        - { name: billing, environment: PROD, pooler: true }',
  '        - { name: search, environment: PROD, ha_replicas: { replica_count: 1 } }',
];

const PASSING = [
  'cases:',
  '  - name: both drifted services are repaired',
  '    state: prod-fleet.state.yaml',
  ...CLOUD,
  '    findings:',
  '      - { service: search, rule: prod-has-pooler }',
  '      - { service: billing, rule: prod-has-ha }',
  '    reconcile: true',
  '    expect:',
  '      findings: []',
  '      calls: { service.setHA: 1, service.enablePooler: 1 }',
  '      cloud:',
  '        nothingElse: true',
  '        services:',
  '          billing: { status: READY, pooler: true, ha_replicas: { replica_count: 1 } }',
  '          search: { status: READY, pooler: true, ha_replicas: { replica_count: 1 } }',
];

const WRONG = [
  'cases:',
  '  - name: the findings are wrong',
  '    state: prod-fleet.state.yaml',
  ...CLOUD,
  '    findings:',
  '      - { service: billing, rule: prod-has-pooler }',
  '      - { service: search, rule: prod-has-pooler }',
  '    reconcile: true',
  '    expect:',
  '      findings: [{ service: search, rule: prod-has-pooler }]',
];

const DENIED = [
  'governance:',
  '  policies:',
  '    - name: no-pooler-changes',
  '      when: "step.action == \'service.enablePooler\'"',
  '      effect: deny',
  '      message: poolers are changed by hand here',
  'cases:',
  '  - name: the pooler repair is denied',
  '    state: prod-fleet.state.yaml',
  ...CLOUD,
  '    findings:',
  '      - { service: billing, rule: prod-has-ha }',
  '      - { service: search, rule: prod-has-pooler }',
  '    reconcile: true',
  '    expect:',
  '      findings: [{ service: search, rule: prod-has-pooler }]',
  '      calls: { service.setHA: 1, service.enablePooler: 0 }',
  '      cloud: { services: { search: { pooler: false } } }',
];

let dir: string;
let result: CliResult;
beforeAll(async () => {
  await buildDist();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-state-cases-'));
  for (const file of ['prod-fleet.state.yaml', 'enable-ha.yaml', 'enable-pooler.yaml'])
    copyFileSync(path.join(RUNBOOKS, file), path.join(dir, file));
  writeFileSync(path.join(dir, 'passing.test.yaml'), `${PASSING.join('\n')}\n`);
  writeFileSync(path.join(dir, 'wrong.test.yaml'), `${WRONG.join('\n')}\n`);
  writeFileSync(path.join(dir, 'denied.test.yaml'), `${DENIED.join('\n')}\n`);
  result = await runTideline(['test', dir, '--junit', path.join(dir, 'results.xml')], {
    timeoutMs: 240_000,
  });
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The lines of the case's report, from its ✓/✗ line to the next case's. */
function caseReport(name: string): string[] {
  const lines = result.stdout.split('\n');
  const start = lines.findIndex((line) => line.includes(` ${name} (`));
  if (start < 0) throw new Error(`no case "${name}" in:\n${result.stdout}`);
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('    '));
  return lines.slice(start, end < 0 ? undefined : end);
}

test('exits 1 with two of three cases failed', () => {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 1, stderr: '' });
  expect(result.stdout).toMatch(/^1 passed, 2 failed \(3 cases in \S+\)$/m);
});

test('the reconcile case passes: drift found, both repaired, nothing found after', () => {
  expect(caseReport('both drifted services are repaired')[0]).toMatch(/^✓ /);
});

test('wrong findings fail, each difference at its place', () => {
  const file = path.relative(REPO_ROOT, path.join(dir, 'wrong.test.yaml'));
  const [head, , ...mismatches] = caseReport('the findings are wrong');
  expect(head).toMatch(/^✗ /);
  expect(mismatches).toEqual([
    `    ${file}:9:9: findings[0]: expected billing breaks prod-has-pooler, got not found`,
    `    ${file}:9:7: findings: expected not listed, got billing breaks prod-has-ha [error]`,
    `    ${file}:13:18: expect.findings[0]: expected search breaks prod-has-pooler, got not found`,
  ]);
});

test("a repair the case's policy denies fails at reconcile with the refusal; the pooler is untouched", () => {
  const file = path.relative(REPO_ROOT, path.join(dir, 'denied.test.yaml'));
  const [head, , ...mismatches] = caseReport('the pooler repair is denied');
  expect(head).toMatch(/^✗ /);
  // Only the repair's outcome is unmet: the findings after, the calls and the cloud are as expected.
  expect(mismatches).toEqual([
    expect.stringMatching(
      new RegExp(
        `^ {4}${file.replace(/[.]/g, '\\.')}:17:16: reconcile: expected enable-pooler\\.yaml for search succeeds, got run test-enable-pooler-search-\\w+: refused by the worker at step pooler \\[POLICY_DENIED\\]: .*poolers are changed by hand here`,
      ),
    ),
  ]);
});

test('JUnit has one testcase per case, the failed ones as failures', () => {
  const xml = readFileSync(path.join(dir, 'results.xml'), 'utf8');
  expect(xml.match(/<testcase /g)).toHaveLength(3);
  expect(xml.match(/<failure /g)).toHaveLength(2);
  expect(xml).toContain('<failure message="findings[0], findings, expect.findings[0]"');
});
