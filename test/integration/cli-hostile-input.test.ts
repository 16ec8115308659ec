// The real `tideline` binary on hostile or careless input (the in-process cases are in
// test/unit/cli-main-hostile-input.test.ts): `--inputs -` reads the process's stdin, and a device, a
// directory or a child path out of the tree end with exit 2, one message and no stack trace,
// without reading them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliEnvironment, runTideline, TIDELINE_BIN } from '../helpers/cli-process';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const PROVISION = 'runbooks/provision-production-service.yaml';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-bin-'));
  writeFileSync(
    path.join(dir, 'escape.yaml'),
    'apiVersion: tideline/v1\nname: escape\ndescription: d\nsteps:\n  - id: child\n    runbook: ../../../../etc/passwd\n',
  );
  return buildDist();
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('--inputs - reads the inputs from stdin', () => {
  const result = spawnSync(process.execPath, [TIDELINE_BIN, 'plan', PROVISION, '--inputs', '-'], {
    cwd: REPO_ROOT,
    env: cliEnvironment(),
    input: 'project_id: p-from-stdin\nname: orders\n',
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('POST /projects/p-from-stdin/services');
});

test.each([
  [
    ['validate', '/dev/zero'],
    'stdout',
    '✗ /dev/zero: 1 problem\n/dev/zero: is a device, not a runbook file\n',
  ],
  [
    ['run', '/dev/zero'],
    'stderr',
    'tideline: /dev/zero is a device, not a runbook file\n  hint: give the path of a runbook YAML file\n',
  ],
  [
    ['run', 'runbooks'],
    'stderr',
    'tideline: runbooks is a directory, not a runbook file\n  hint: give the path of a runbook YAML file\n',
  ],
])('%j: exit 2, one message, no stack, without reading it', async (args, stream, text) => {
  // Reading /dev/zero never ends: a CLI that read before refusing would hang until the test's
  // timeout; an exit code (not a kill's null) says it refused on its own.
  const result = await runTideline(args);
  expect(result.code).toBe(2);
  expect(stream === 'stdout' ? result.stdout : result.stderr).toBe(text);
});

test('a child runbook out of the tree: exit 2 at the step', async () => {
  const file = path.join(dir, 'escape.yaml');
  const result = await runTideline(['validate', file]);
  expect(result.code).toBe(2);
  expect(result.stdout).toContain(
    `${path.relative(REPO_ROOT, file)}:6:14: child runbook \`../../../../etc/passwd\` is outside the runbooks' folder\n`,
  );
  expect(result.stderr).toBe('');
});
