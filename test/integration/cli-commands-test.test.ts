// `tideline test` through the built CLI: two shipped test files (a runbook's cases and the state
// cases) and the runbook and test file `tideline init` writes pass together (exit 0, with a JUnit
// report; every shipped case passes in the mutation suite's baselines,
// test/helpers/shipped-mutation-suite.ts); the rollback case of a deliberately broken runbook
// fails with the expectation it broke and the step trail (exit 1, and a JUnit failure); an
// operator action scripted for a hold that never comes fails its case; an invalid test file is
// refused at file:line:column (exit 2) before anything starts. Each command that runs cases
// starts its own dev server and worker.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSuite } from '../../rehearsal/run-suite';
import { runTideline, withoutCoreShutdownPanic } from '../helpers/cli-process';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const RUNBOOKS = path.join(REPO_ROOT, 'runbooks');
const PROVISION = 'provision-production-service.yaml';
const PROVISION_TESTS = 'provision-production-service.test.yaml';
/** The shipped files run through the CLI here: a runbook's cases, with coverage, and the state cases. */
const SHIPPED_FILES = [PROVISION_TESTS, 'prod-fleet.test.yaml'].map((file) => path.join('runbooks', file));

let dir: string;
let scaffold: string;
beforeAll(async () => {
  await buildDist();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-cli-test-'));
  scaffold = path.join(dir, 'scaffold');
  const init = await runTideline(['init', 'scaffolded', '--dir', scaffold], { timeoutMs: 60_000 });
  expect({ code: init.code, stderr: init.stderr }).toEqual({ code: 0, stderr: '' });
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('shipped runbook tests and a runbook scaffolded by tideline init pass, one JUnit testcase per case', async () => {
  const suite = loadSuite([...SHIPPED_FILES, scaffold], REPO_ROOT, undefined);
  if (!suite.ok) throw new Error(JSON.stringify(suite.problems));
  // The runbook cases and the state cases (prod-fleet.test.yaml): one result and testcase each.
  const count = suite.cases.length + suite.stateCases.length;
  expect(suite.stateCases.length).toBeGreaterThanOrEqual(2);
  expect(suite.cases.filter((c) => c.file.startsWith('runbooks')).length).toBeGreaterThanOrEqual(5);
  expect(suite.cases.filter((c) => c.runbook.endsWith('scaffolded.yaml')).length).toBeGreaterThanOrEqual(2);
  const junit = path.join(dir, 'results.xml');
  const result = await runTideline(['test', ...SHIPPED_FILES, scaffold, '--junit', junit], {
    timeoutMs: 240_000,
  });
  expect({ code: result.code, stderr: withoutCoreShutdownPanic(result.stderr) }).toEqual({
    code: 0,
    stderr: '',
  });
  for (const name of [...suite.cases, ...suite.stateCases].map((c) => c.name))
    expect(result.stdout).toContain(`✓ ${name} (`);
  expect(result.stdout).toMatch(new RegExp(`^${count} passed \\(${count} cases in \\S+\\)$`, 'm'));
  // After the summary, each runbook's coverage: a line of counts per runbook.
  expect(result.stdout).toMatch(
    /^coverage by the \d+ cases run:\n(?:.*\n)*? {2}runbooks\/provision-production-service\.yaml +steps \d+\/\d+ {2}branches \d+\/\d+ {2}failure paths \d+\/\d+$/m,
  );
  const xml = readFileSync(junit, 'utf8');
  expect(xml.match(/<testcase /g)).toHaveLength(count);
  expect(xml).not.toContain('<failure');
}, 240_000);

test("a broken compensation fails the rollback case with what it left behind and the run's steps", async () => {
  const broken = path.join(dir, 'broken');
  rmSync(broken, { recursive: true, force: true });
  // The compensation deletes (and waits for) the VPC's id instead of the service's: the runbook is
  // valid, but rolling back leaves the service behind.
  const text = readFileSync(path.join(RUNBOOKS, PROVISION), 'utf8');
  const wrong = text
    .replace("service_id: '${{ steps.create.output.service_id }}'", "service_id: '${{ inputs.vpc_id }}'")
    .replace("service_id: '${{ steps.create.output.service_id }}'", "service_id: '${{ inputs.vpc_id }}'");
  expect(wrong).not.toBe(text);
  mkdirSync(broken);
  writeFileSync(path.join(broken, PROVISION), wrong);
  copyFileSync(path.join(RUNBOOKS, PROVISION_TESTS), path.join(broken, PROVISION_TESTS));

  const junit = path.join(dir, 'broken.xml');
  const result = await runTideline(['test', broken, '--filter', 'rolls back', '--junit', junit], {
    timeoutMs: 240_000,
  });
  // With the output, so that a case that passed when it should not says why.
  expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toMatchObject({ code: 1 });
  expect(result.stdout).toMatch(/^✗ a pooler that keeps failing rolls back/m);
  // The delete was sent, for the VPC's id, and answered 404 (so it counts as called and, a
  // deletion of what is gone, as done): only the service left behind tells.
  expect(result.stdout).toMatch(
    /^ {4}\S+\.test\.yaml:\d+:\d+: cloud\.services\.doomed: expected absent, got READY \(\w+\)$/m,
  );
  expect(result.stdout).toMatch(/^ {6}create\/undo\.delete_service \(undoes create\): done$/m);
  expect(result.stdout).toMatch(/^ {6}pooler: failed — CLOUD_API_RATE_LIMITED: /m);
  expect(result.stdout).toMatch(/^0 passed, 1 failed/m);
  // The same mismatches, as a JUnit failure of the one case run.
  const xml = readFileSync(junit, 'utf8');
  expect(xml.match(/<testcase /g)).toHaveLength(1);
  expect(xml).toMatch(/<failure message="cloud\.services\.doomed" type="TEST_EXPECTATION_UNMET">/);
}, 240_000);

test('a compensation that sets the new password again is caught by the restore case, showing neither', async () => {
  const broken = path.join(dir, 'wrong-restore');
  rmSync(broken, { recursive: true, force: true });
  mkdirSync(broken);
  // The undo sets the new password again instead of the previous one: valid, and wrong.
  const text = readFileSync(path.join(RUNBOOKS, 'rotate-password.yaml'), 'utf8');
  const wrong = text.replace(
    "password: '${{ inputs.previous_password }}'",
    "password: '${{ inputs.new_password }}'",
  );
  expect(wrong).not.toBe(text);
  writeFileSync(path.join(broken, 'rotate-password.yaml'), wrong);
  const tests = readFileSync(path.join(RUNBOOKS, 'rotate-password.test.yaml'), 'utf8');
  writeFileSync(path.join(broken, 'rotate-password.test.yaml'), tests);
  const lines = tests.split('\n');
  const line = lines.findIndex((l) => l.includes("password: '${{ inputs.previous_password }}'"));
  const column = (lines[line] ?? '').indexOf("'${{ inputs.previous_password }}'") + 1;

  const result = await runTideline(['test', broken, '--filter', 'puts the previous password back'], {
    timeoutMs: 240_000,
  });
  expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toMatchObject({ code: 1 });
  expect(result.stdout).toMatch(
    /^✗ a run cancelled after the rotation puts the previous password back \(\d/m,
  );
  // The one unmet expectation, at its place in the test file; no password in the output.
  const mismatches = result.stdout.split('\n').filter((l) => /^ {4}\S+\.test\.yaml:\d+:\d+: /.test(l));
  expect(mismatches).toEqual([
    expect.stringMatching(
      new RegExp(
        `rotate-password\\.test\\.yaml:${line + 1}:${column}: cloud\\.services\\.shop\\.password: password differs from the expected value$`,
      ),
    ),
  ]);
  expect(result.stdout).not.toMatch(/Previous-Secret|Rotated-Secret/);
  expect(result.stdout).not.toContain('TEST_CASE_TIMEOUT');
}, 240_000);

/** A folder of its own with the provisioning runbook and one test file of these lines. */
function provisionWithTests(folder: string, file: string, lines: string[]): string {
  const at = path.join(dir, folder);
  mkdirSync(at, { recursive: true });
  copyFileSync(path.join(RUNBOOKS, PROVISION), path.join(at, PROVISION));
  writeFileSync(path.join(at, file), lines.join('\n'));
  return at;
}

test('an operator action scripted for a hold that never comes is an unmet expectation', async () => {
  const unheld = provisionWithTests('unheld', 'unheld.test.yaml', [
    'cases:',
    '  - name: nothing fails, so nothing holds',
    `    runbook: ${PROVISION}`,
    '    onFailure: hold',
    '    cloud: { vpcs: [{ name: main }] }',
    '    inputs: { project_id: "${{ cloud.project_id }}", name: calm, vpc_id: "${{ cloud.vpcs.main.id }}" }',
    '    whenHeld:',
    '      - { action: retry, fixFaults: true }',
    '    expect:',
    '      status: succeeded',
  ]);
  const result = await runTideline(['test', unheld], { timeoutMs: 240_000 });
  expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toMatchObject({ code: 1 });
  expect(result.stdout).toMatch(/^✗ nothing fails, so nothing holds/m);
  expect(result.stdout).toMatch(
    /^ {4}\S*unheld\.test\.yaml:8:9: whenHeld\[0\]: expected .*a hold to retry.*, got .*ended succeeded without holding/m,
  );
}, 240_000);

test('an invalid test file is refused at file:line:column and nothing runs', async () => {
  const invalid = provisionWithTests('invalid', 'bad.test.yaml', [
    'cases:',
    '  - name: typo',
    `    runbook: ${PROVISION}`,
    '    inputs: { project_id: p, name: orders, vpc_id: v }',
    '    expect:',
    '      status: succeeded',
    '      stpes: { create: done }',
  ]);
  const result = await runTideline(['test', path.relative(REPO_ROOT, invalid)], { timeoutMs: 60_000 });
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const shown = path.relative(REPO_ROOT, path.join(invalid, 'bad.test.yaml'));
  expect(result.stderr).toContain(
    `${shown}:7:7: cases.0.expect: Unrecognized key: "stpes" [TEST_FILE_INVALID]`,
  );
  expect(result.stderr).toMatch(/nothing was run/);
});
