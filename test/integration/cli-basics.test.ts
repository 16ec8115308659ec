// The real `tideline` binary without a stack: help, version, usage errors (exit 2), validate and
// plan output, an unreachable Temporal server (exit 3), and that --help and validate never load
// the Temporal SDK (start-up time).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../../stack/ports';
import { jsonOutput, runTideline, startCli } from '../helpers/cli-process';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const BROKEN = 'test/fixtures/cli/broken.yaml';
const PROVISION = 'runbooks/provision-production-service.yaml';

beforeAll(() => buildDist(), 240_000);

describe('help and usage', () => {
  test('--help lists the commands, the exit codes and examples', async () => {
    const result = await runTideline(['--help']);
    expect(result.code).toBe(0);
    for (const command of [
      'run',
      'validate',
      'plan',
      'status',
      'list',
      'history',
      'cancel',
      'approve',
      'reject',
      'schedule',
      'worker',
      'local-cloud',
      'dev',
      'demo',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    }
    expect(result.stdout).toMatch(/^ {2}3 +cannot reach Temporal/m);
    expect(result.stdout).toMatch(/^ {2}5 +the run is held at a failed step/m);
    expect(result.stderr).toBe('');
  });

  test('every command has --help with usage and examples', async () => {
    for (const command of [
      'run',
      'validate',
      'plan',
      'status',
      'list',
      'history',
      'cancel',
      'approve',
      'reject',
      'worker',
      'local-cloud',
    ]) {
      const result = await runTideline([command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`usage: tideline ${command}`);
      expect(result.stdout).toMatch(/examples:\n {2}(\S+=\S+ )?tideline /);
    }
    const viaHelp = await runTideline(['help', 'plan']);
    expect(viaHelp.stdout).toContain('usage: tideline plan FILE');
  }, 60_000);

  test('--version prints the package version', async () => {
    const result = await runTideline(['--version']);
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(result.stdout).toBe(`tideline ${pkg.version}\n`);
  });

  test('an unknown flag or command is a usage error (exit 2) with a suggestion, no stack', async () => {
    const flag = await runTideline(['run', PROVISION, '--detatch']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      'tideline: unknown option --detatch\n  hint: did you mean --detach? (see `tideline run --help`)\n',
    );
    expect(flag.stdout).toBe('');

    const command = await runTideline(['lsit']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "lsit"');
    expect(command.stderr).toContain('did you mean `tideline list`?');

    const missing = await runTideline(['status']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('tideline: missing the run ID');

    const json = await runTideline(['list', '--limit', 'many', '--json']);
    expect(json.code).toBe(2);
    expect(jsonOutput(json)).toEqual({
      error: {
        code: 'CLI_USAGE',
        message: '--limit must be a whole number of at least 1',
        hint: 'got "many"',
      },
    });
  });
});

describe('validate', () => {
  test('prints every problem with file:line:column and a hint; exit 2', async () => {
    const result = await runTideline(['validate', BROKEN, PROVISION]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(
      `✗ ${BROKEN}: 2 problems\n${BROKEN}:6:11: unknown action \`service.craete\`\n  hint: did you mean \`service.create\`?\n`,
    );
    expect(result.stdout).toMatch(new RegExp(`${BROKEN}:10:9: \`steps.nope\` refers to no step`));
    expect(result.stdout).toContain(`✓ ${PROVISION}: provision-production-service is valid (7 steps)`);
    expect(result.stdout).toContain('1 of 2 runbooks have problems');
  });

  test('exit 0 when all are valid; --json lists problems with positions', async () => {
    expect((await runTideline(['validate', PROVISION, 'runbooks/fork-and-promote.yaml'])).code).toBe(0);
    const json = await runTideline(['validate', BROKEN, '--json']);
    expect(json.code).toBe(2);
    expect(jsonOutput(json)).toEqual({
      ok: false,
      runbooks: [
        {
          file: BROKEN,
          ok: false,
          name: null,
          problems: [
            expect.objectContaining({
              file: BROKEN,
              line: 6,
              column: 11,
              rule: 'unknown-action',
              hint: 'did you mean `service.create`?',
            }),
            expect.objectContaining({ file: BROKEN, line: 10, column: 9, rule: 'reference' }),
          ],
        },
      ],
    });
  });

  test('a runbook test file is checked as one, with the runbook it names', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tideline-validate-'));
    const broken = path.join(dir, 'broken.test.yaml');
    writeFileSync(broken, 'cases:\n  - name: no expectations\n    runbook: nope.yaml\n');
    try {
      const result = await runTideline([
        'validate',
        'runbooks/provision-production-service.test.yaml',
        'runbooks/prod-fleet.test.yaml',
        broken,
      ]);
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(
        /✓ runbooks\/provision-production-service\.test\.yaml: runbook tests are valid \(\d+ cases?\)/,
      );
      // Its state cases count as cases.
      expect(result.stdout).toMatch(
        /✓ runbooks\/prod-fleet\.test\.yaml: runbook tests are valid \([1-9]\d* cases?\)/,
      );
      expect(result.stdout).toMatch(/broken\.test\.yaml:2:5: .*\[TEST_FILE_INVALID\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a state file is checked as one, with its repair runbooks; a folder includes it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tideline-validate-'));
    const broken = path.join(dir, 'broken.state.yaml');
    writeFileSync(
      broken,
      'apiVersion: tideline/v1\nkind: State\nname: broken\nrules:\n  - name: ha\n    select: {}\n    expect: "service.nope >= 1"\n',
    );
    try {
      const result = await runTideline(['validate', 'runbooks/prod-fleet.state.yaml', broken]);
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(
        /✓ runbooks\/prod-fleet\.state\.yaml: state prod-fleet is valid \([1-9]\d* rules?\)/,
      );
      expect(result.stdout).toMatch(
        /broken\.state\.yaml:7:13: rules\.0\.expect: .*nope.*\[STATE_FILE_INVALID\]/,
      );
      const folder = await runTideline(['validate', 'runbooks/']);
      expect(folder.code).toBe(0);
      expect(folder.stdout).toContain('✓ runbooks/prod-fleet.state.yaml: state prod-fleet is valid');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('runbooks/*.yaml as the shell expands it: each file checked as what it is', async () => {
    const files = readdirSync(path.join(REPO_ROOT, 'runbooks'))
      .filter((name) => name.endsWith('.yaml'))
      .sort()
      .map((name) => `runbooks/${name}`);
    expect(files.some((file) => file.endsWith('.mutants.yaml'))).toBe(true);
    const result = await runTideline(['validate', ...files]);
    expect({ code: result.code, stdout: result.stdout }).toMatchObject({ code: 0 });
    expect(result.stdout).toMatch(
      /✓ runbooks\/rotate-password\.mutants\.yaml: list of mutants is valid \([1-9]\d* mutants?\)/,
    );
    expect(result.stdout).toContain(`all ${files.length} runbooks are valid`);
    // The folder form says the same of the same files.
    const folder = await runTideline(['validate', 'runbooks/']);
    expect(folder.stdout).toBe(result.stdout);

    const dir = mkdtempSync(path.join(os.tmpdir(), 'tideline-validate-'));
    const stale = path.join(dir, 'rotate.mutants.yaml');
    copyFileSync(path.join(REPO_ROOT, 'runbooks', 'rotate-password.yaml'), path.join(dir, 'rotate.yaml'));
    writeFileSync(stale, 'equivalent:\n  - mutant: drop-step:nope\n    reason: a step that is gone\n');
    try {
      const named = await runTideline(['validate', stale]);
      expect(named.code).toBe(2);
      expect(named.stdout).toMatch(
        /rotate\.mutants\.yaml:2:13: equivalent\[0\]: the runbook has no mutant "drop-step:nope" \(any more\) \[MUTANT_UNKNOWN\]/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a watch that lasts over 10 years is refused, naming the field', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tideline-validate-'));
    const file = path.join(dir, 'bake.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: tideline/v1',
        'name: bake',
        'description: Watch a service for a while.',
        'steps:',
        '  - id: bake',
        '    watch: service.get',
        '    with: { project_id: p, service_id: s }',
        '    for: 99999d',
        "    failIf: 'false'",
        '',
      ].join('\n'),
    );
    try {
      const result = await runTideline(['validate', file]);
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(
        /bake\.yaml:8:10: `for` is longer than 3650d \(10 years\), the longest duration a runbook may give/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a missing file is reported, not thrown', async () => {
    const result = await runTideline(['validate', 'nope.yaml']);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('✗ nope.yaml: 1 problem\nnope.yaml: runbook file not found');
    expect(result.stderr).toBe('');
  });
});

describe('plan', () => {
  test('text: resolved requests from inputs, run-time values as written, secrets masked', async () => {
    const result = await runTideline([
      'plan',
      PROVISION,
      '-i',
      'project_id=p1',
      '-i',
      'name=orders',
      '-i',
      'cpu_millis=2000',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('POST /projects/p1/services');
    expect(result.stdout).toContain(
      'body {"name":"orders","addons":["time-series"],"cpu_millis":"2000","memory_gbs":"8"}',
    );
    expect(result.stdout).toContain('DELETE /projects/p1/services/{service_id}');
    expect(result.stdout).toContain('service_id = ${{ steps.create.output.service_id }}');
    expect(result.stdout).toMatch(/vpc_id +missing \(required\)/);
    expect(result.stdout).toMatch(/password +•••••• \(secret\)/);
    expect(result.stdout).toContain('inputs still needed to run: vpc_id');
  });

  test('bad input values are refused (exit 2)', async () => {
    const result = await runTideline(['plan', PROVISION, '-i', 'name=Not Valid']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('input `name` must match the pattern');
    expect(result.stderr).not.toContain('Not Valid');
  });

  test('mermaid draws the step graph; json has every step', async () => {
    const mermaid = await runTideline(['plan', PROVISION, '--format', 'mermaid']);
    expect(mermaid.code).toBe(0);
    const lines = mermaid.stdout.split('\n');
    expect(lines[0]).toBe('flowchart TD');
    expect(mermaid.stdout).toContain('["create: Create the service<br/>call service.create"]');
    expect(mermaid.stdout).toMatch(/n\d+ -\.->\|"undo"\| n\d+/);
    expect(lines.filter((line) => / --> /.test(line))).toHaveLength(8); // start → 7 steps → done

    const json = jsonOutput<{
      runbook: string;
      steps: { id: string; request?: { method: string; path: string } }[];
    }>(await runTideline(['plan', PROVISION, '-i', 'project_id=p1', '--json']));
    expect(json.runbook).toBe('provision-production-service');
    expect(json.steps.map((s) => s.id)).toEqual([
      'create',
      'ready',
      'attach',
      'attached',
      'pooler',
      'pooler_ready',
      'prod',
    ]);
    expect(json.steps[4]?.request).toMatchObject({
      method: 'POST',
      path: '/projects/p1/services/{service_id}/enablePooler',
    });
  });
});

describe('Temporal unreachable', () => {
  test('a one-line diagnosis with what to try, exit 3', async () => {
    const port = await findFreePort(); // nothing listens there
    // Exit 3 (not a kill's null) says the CLI gave up on its own rather than retrying until the
    // test's timeout.
    const result = await runTideline(['list', '--address', `127.0.0.1:${port}`]);
    expect(result.code).toBe(3);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^tideline: cannot reach Temporal at 127\\.0\\.0\\.1:${port} \\(`));
    expect(lines[1]).toMatch(/^ {2}hint: start a local stack with `tideline dev`/);
    expect(lines).toHaveLength(2);

    const viaEnv = await runTideline(['status', 'x', '--json'], {
      env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
    });
    expect(viaEnv.code).toBe(3);
    expect(jsonOutput<{ error: { code: string } }>(viaEnv).error.code).toBe('TEMPORAL_UNAVAILABLE');
  }, 60_000);
});

describe('worker and the local cloud', () => {
  test('local-cloud: the first line has the URL and key pairs; SIGTERM stops it (exit 0)', async () => {
    const localCloud = startCli(['local-cloud', '--port', '0', '--seed', '7']);
    const first = (await localCloud.waitForStdout(/^\{.*\}\n/)).split('\n')[0] ?? '';
    const info = JSON.parse(first) as {
      url: string;
      projects: { id: string; access_key: string; secret_key: string }[];
      controlUrl: string;
      controlToken: string;
    };
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/public\/api\/v1$/);
    expect(info.projects[0]).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        access_key: expect.any(String),
        secret_key: expect.any(String),
      }),
    );
    expect(info.controlUrl).toBe(new URL('/__sim', info.url).href);
    const health = await fetch(`${info.controlUrl}/health`, {
      headers: { authorization: `Bearer ${info.controlToken}` },
    });
    expect(health.status).toBe(200);
    localCloud.signal('SIGTERM');
    const done = await localCloud.done;
    expect(done.code).toBe(0);
    expect(done.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(done.stderr).toContain('SIGTERM received, stopping');
    expect(done.stderr).not.toContain('deprecated');
  }, 30_000);

  test('the deprecated `simulator` spelling still serves, with one note naming `local-cloud`', async () => {
    const old = startCli(['simulator', '--port', '0']);
    const first = (await old.waitForStdout(/^\{.*\}\n/)).split('\n')[0] ?? '';
    expect((JSON.parse(first) as { url: string }).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    old.signal('SIGTERM');
    const done = await old.done;
    expect(done.code).toBe(0);
    const notes = done.stderr.split('\n').filter((line) => line.includes('deprecated'));
    expect(notes).toEqual([
      'tideline: `tideline simulator` is deprecated and will be removed; use `tideline local-cloud`',
    ]);
  }, 30_000);

  test('worker: incomplete configuration is exit 2 with every problem', async () => {
    const result = await runTideline(['worker', '--address', '127.0.0.1:1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('invalid tideline worker configuration');
    expect(result.stderr).toContain('TIDELINE_CLOUD_URL');
  });
});

test('--help and validate never load the Temporal SDK', () => {
  const script = `
    const { runCli } = require('./dist/cli/main.js');
    const sink = { write() { return true; } };
    const io = { stdout: sink, stderr: sink, env: {}, cwd: process.cwd(), interrupted: new Promise(() => {}) };
    (async () => {
      await runCli(['--help'], io);
      await runCli(['validate', '${PROVISION}'], io);
      const loaded = Object.keys(require.cache).filter((file) => file.includes('@temporalio'));
      process.stdout.write(JSON.stringify(loaded));
    })();`;
  const result = spawnSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(JSON.parse(result.stdout)).toEqual([]);
});
