// `tideline test` rehearses the worker's policies: a test file's `governance` runs its cases on a
// worker with those policies and calendars, a case's `starter` is a verified starter with groups,
// its `clock` is the worker's time for policies and windows, and `expect.policies` lists the rules
// that applied. A wrong expectation fails its case with what was found; a governance section that
// does not compile is refused with its position before anything runs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTideline } from '../helpers/cli-process';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'governance', 'policies.test.yaml');
const FLEET = path.join(REPO_ROOT, 'test', 'fixtures', 'governance', 'fleet-window.test.yaml');
const APPROVALS = path.join(REPO_ROOT, 'test', 'fixtures', 'governance', 'policy-approvals.test.yaml');

let dir: string;
beforeAll(async () => {
  await buildDist();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-governance-test-'));
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture, with runbook paths made absolute so it can be written anywhere. */
function fixtureText(): string {
  return readFileSync(FIXTURE, 'utf8').replaceAll(
    '../../../runbooks/',
    `${path.join(REPO_ROOT, 'runbooks')}/`,
  );
}

test('the policy cases pass: a deny for bob, alice of dba through, a freeze that waits, after it', async () => {
  const result = await runTideline(['test', FIXTURE], { timeoutMs: 240_000 });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toMatch(/^4 passed \(4 cases in \S+\)$/m);
}, 300_000);

test('a case that expects the wrong policy outcome fails with what the run did', async () => {
  const wrong = fixtureText()
    .replace(/(name: bob may not resize[\s\S]*?expect:\n\s+status:) failed/, '$1 succeeded')
    .replace(
      /(name: alice of group dba may[\s\S]*?policies:) \[\]/,
      '$1 [{ rule: prod-resize-needs-dba, step: resize }]',
    );
  const file = path.join(dir, 'wrong.test.yaml');
  writeFileSync(file, wrong);
  const result = await runTideline(['test', file], { timeoutMs: 240_000 });
  expect(result.code).toBe(1);
  expect(result.stdout).toContain('✗ bob may not resize a PROD service above 4 CPUs');
  expect(result.stdout).toContain('status: expected succeeded, got failed');
  expect(result.stdout).toContain('✗ alice of group dba may');
  expect(result.stdout).toMatch(/policies: expected .*prod-resize-needs-dba.*, got \[\]/);
  expect(result.stdout).toMatch(/^2 passed, 2 failed/m);
}, 300_000);

test('a window that closes at the fourth item of a fleet, rehearsed on a stepped clock, the same every time', async () => {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const result = await runTideline(['test', FLEET], { timeoutMs: 240_000 });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^1 passed \(1 case in \S+\)$/m);
  }
  // Half an hour per check: the freeze begins at the eighth item, and the case says where it found it.
  const file = path.join(path.dirname(FLEET), `fleet-window-${process.pid}.test.yaml`);
  writeFileSync(file, readFileSync(FLEET, 'utf8').replace('perCheck: 1h', 'perCheck: 30m'));
  try {
    const result = await runTideline(['test', file], { timeoutMs: 240_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /policies: expected .*, got .*"step":"each\[7\]\.promote","effect":"window","open":false,"opensAt":"2030-12-21T00:00:00.000Z"/,
    );
  } finally {
    rmSync(file, { force: true });
  }
}, 600_000);

test('an approval a policy asks for, rehearsed: signed by a DBA it counts; by someone outside dba it is refused', async () => {
  const passing = await runTideline(['test', APPROVALS], { timeoutMs: 240_000 });
  expect({ code: passing.code, stderr: passing.stderr }).toEqual({ code: 0, stderr: '' });
  expect(passing.stdout).toMatch(/^2 passed \(2 cases in \S+\)$/m);
  // dave is no DBA here: the run refuses his signed approval, and the case stops there saying why
  // and how a case names a DBA, rather than waiting out its timeout for an answer never sent.
  const file = path.join(path.dirname(APPROVALS), `policy-approvals-${process.pid}.test.yaml`);
  writeFileSync(file, readFileSync(APPROVALS, 'utf8').replaceAll('groups: [dba]', 'groups: [dev]'));
  try {
    const result = await runTideline(['test', file, '--filter', 'goes through', '--timeout', '120'], {
      timeoutMs: 240_000,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "approvals[0]: the run refused dave's approval of rotate.policy.prod-rotation-needs-dba: dave is not one of this step's approvers (group:dba) (APPROVAL_NOT_APPROVER); a decision on this step counts only signed by one of its approvers (group:dba), whom the case's worker knows: e.g. people: { dave: { groups: [dba] } } and by: dave [TEST_CASE_ERROR]",
    );
    expect(result.stdout).toMatch(/rotate: running/);
  } finally {
    rmSync(file, { force: true });
  }
}, 600_000);

test('a governance section that does not compile is refused at its position, and nothing runs', async () => {
  const broken = fixtureText().replace(
    "when: \"step.action == 'service.resize'",
    "when: \"step.actoin == 'service.resize'",
  );
  const file = path.join(dir, 'broken.test.yaml');
  writeFileSync(file, broken);
  const result = await runTideline(['test', file], { timeoutMs: 60_000 });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/broken\.test\.yaml:3:1: .*governance\.policies\[0\]\.when/);
  expect(result.stdout).not.toContain('passed');
}, 120_000);
