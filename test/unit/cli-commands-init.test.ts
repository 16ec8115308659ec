// `tideline init NAME`: the runbook and test file it writes pass the checks `tideline validate`
// and `tideline test` make before anything runs, point editors at the schemas from where they are
// written, and a bad NAME or an existing file is refused with its code; --force overwrites.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initCommand, schemaReference } from '../../cli/commands/init';
import type { CliContext } from '../../cli/context';
import { CliError, EXIT } from '../../cli/errors';
import { TEMPLATE_CASES } from '../../cli/init-templates';
import { runCli } from '../../cli/main';
import { loadTestFile } from '../../rehearsal/test-file-loader';
import { checkRunbookFile } from '../../dsl/loader';
import { capturedStreams } from '../helpers/captured-streams';
import { REPO_ROOT } from '../helpers/docs-pages';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-init-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function context(json = false): CliContext & { out: () => string; err: () => string } {
  const { stdout, stderr, out, err } = capturedStreams();
  return {
    stdout,
    stderr,
    env: { NO_COLOR: '1' },
    cwd: dir,
    globals: { json },
    interrupted: new Promise(() => undefined),
    out,
    err,
  };
}

/** The CliError the command throws; fails the test when it returns instead. */
async function refusal(argv: string[]): Promise<CliError> {
  try {
    await initCommand(argv, context());
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('expected the command to refuse');
}

test('writes a runbook and a test file that pass validate and the test file checks', async () => {
  const ctx = context();
  expect(await initCommand(['demo-thing'], ctx)).toBe(EXIT.OK);
  const runbook = path.join(dir, 'runbooks', 'demo-thing.yaml');
  const tests = path.join(dir, 'runbooks', 'demo-thing.test.yaml');

  const checked = checkRunbookFile(runbook);
  expect(checked.problems).toEqual([]);
  expect(checked.definition?.name).toBe('demo-thing');
  const steps = checked.definition?.steps ?? [];
  expect(steps.some((step) => step.compensate.length > 0)).toBe(true);
  expect(Object.keys(checked.definition?.outputs ?? {}).length).toBeGreaterThan(0);

  const loaded = loadTestFile(tests, (absolute) => path.relative(dir, absolute));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems, null, 2));
  expect(loaded.cases.length).toBeGreaterThanOrEqual(2);
  expect(loaded.cases).toHaveLength(TEMPLATE_CASES.length);
  expect(loaded.cases.every((c) => c.definition.name === 'demo-thing')).toBe(true);
  const statuses = loaded.cases.map((c) => c.expect.status);
  expect(statuses).toContain('succeeded');
  const rollback = loaded.cases.find((c) => c.faults.length > 0);
  expect(rollback?.expect.status).toBe('failed');
  expect(Object.values(rollback?.expect.steps ?? {})).toContain('compensated');

  expect(ctx.out()).toBe(
    [
      '✓ wrote runbooks/demo-thing.yaml',
      '✓ wrote runbooks/demo-thing.test.yaml (3 cases: a success, a rollback after a fault, a refusal)',
      'next:',
      '  tideline validate runbooks/demo-thing.yaml',
      '  tideline test runbooks/demo-thing.test.yaml',
      '',
    ].join('\n'),
  );
  expect(ctx.err()).toBe('');
});

test('the $schema lines reach the schemas from where the files are written', async () => {
  await initCommand(['near', '--dir', 'a/b'], context());
  for (const [file, schema] of [
    ['near.yaml', 'runbook.schema.json'],
    ['near.test.yaml', 'runbook-test.schema.json'],
  ] as const) {
    const first = readFileSync(path.join(dir, 'a', 'b', file), 'utf8').split('\n')[0] ?? '';
    const reference = /^# yaml-language-server: \$schema=(\S+)$/.exec(first)?.[1] ?? '';
    expect(reference).toMatch(new RegExp(`^\\.\\./.*/schema/${schema.replace(/\./g, '\\.')}$`));
    expect(path.resolve(dir, 'a', 'b', reference)).toBe(path.join(REPO_ROOT, 'schema', schema));
  }
});

test('the reference from runbooks/ is the shipped one in a checkout, and reaches node_modules when installed', () => {
  expect(schemaReference(path.join(REPO_ROOT, 'runbooks'), 'schema/runbook.schema.json')).toBe(
    '../schema/runbook.schema.json',
  );
  const project = path.join(path.sep, 'srv', 'ops');
  const installed = path.join(project, 'node_modules', 'tideline');
  expect(schemaReference(path.join(project, 'runbooks'), 'schema/runbook.schema.json', installed)).toBe(
    '../node_modules/tideline/schema/runbook.schema.json',
  );
  expect(schemaReference(project, 'schema/runbook-test.schema.json', installed)).toBe(
    'node_modules/tideline/schema/runbook-test.schema.json',
  );
});

test('--json prints the written paths', async () => {
  const ctx = context(true);
  expect(await initCommand(['as-json', '--dir', 'ops'], ctx)).toBe(EXIT.OK);
  expect(JSON.parse(ctx.out())).toEqual({
    ok: true,
    runbook: path.join('ops', 'as-json.yaml'),
    test: path.join('ops', 'as-json.test.yaml'),
  });
  expect(existsSync(path.join(dir, 'ops', 'as-json.test.yaml'))).toBe(true);
});

test.each([
  ['Demo'],
  ['demo_thing'],
  ['demo-'],
  ['9lives'],
  ['demo--thing'],
  ['../escape'],
  ['a'.repeat(64)],
])('the name %s is refused by the runbook name rule, and nothing is written', async (name) => {
  const error = await refusal([name]);
  expect(error.code).toBe('CLI_USAGE');
  expect(error.exitCode).toBe(EXIT.USAGE);
  expect(error.message).toContain('is not a runbook name');
  expect(existsSync(path.join(dir, 'runbooks'))).toBe(false);
});

test('an existing file is refused with FILE_EXISTS and left as it was; --force overwrites', async () => {
  mkdirSync(path.join(dir, 'runbooks'));
  const tests = path.join(dir, 'runbooks', 'taken.test.yaml');
  writeFileSync(tests, 'mine\n');
  const error = await refusal(['taken']);
  expect(error.code).toBe('FILE_EXISTS');
  expect(error.exitCode).toBe(EXIT.USAGE);
  expect(error.message).toBe(
    `${path.join('runbooks', 'taken.test.yaml')} already exists; nothing was written`,
  );
  expect(error.hint).toContain('--force');
  expect(readFileSync(tests, 'utf8')).toBe('mine\n');
  expect(existsSync(path.join(dir, 'runbooks', 'taken.yaml'))).toBe(false);

  const ctx = context();
  expect(await initCommand(['taken', '--force'], ctx)).toBe(EXIT.OK);
  expect(readFileSync(tests, 'utf8')).toContain('cases:');
  expect(ctx.out()).toContain('✓ wrote runbooks/taken.yaml\n');
  expect(ctx.out()).toContain('✓ overwrote runbooks/taken.test.yaml (');
});

test('through the CLI: listed in --help, and a refusal is one line, a hint and exit 2', async () => {
  const run = async (argv: string[]) => {
    const { stdout, stderr, out, err } = capturedStreams();
    const code = await runCli(argv, {
      stdout,
      stderr,
      env: { NO_COLOR: '1' },
      cwd: dir,
      interrupted: new Promise(() => undefined),
    });
    return { code, out: out(), err: err() };
  };
  const help = await run(['--help']);
  expect(help.out).toMatch(/^ {2}init\s+write a new runbook/m);
  expect((await run(['init', 'twice'])).code).toBe(EXIT.OK);
  const again = await run(['init', 'twice']);
  expect(again).toEqual({
    code: EXIT.USAGE,
    out: '',
    err: [
      `tideline: ${path.join('runbooks', 'twice.yaml')} and ${path.join('runbooks', 'twice.test.yaml')} already exist; nothing was written`,
      '  hint: choose another NAME or --dir, or add --force to overwrite',
      '',
    ].join('\n'),
  });
});
