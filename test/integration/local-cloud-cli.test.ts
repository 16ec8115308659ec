// The local cloud's CLI (local-cloud/main.ts), compiled and spawned as a real process: the first
// stdout line, clean stops on SIGINT/SIGTERM, and exit 2 with one clear line for bad input.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { EXTRA_FIELD } from '../../local-cloud/dialect';
import { basicAuth } from '../helpers/local-cloud';
import { compileLocalCloud, type LocalCloudBuild } from '../helpers/local-cloud-build';

const root = resolve(__dirname, '../..');
let build: LocalCloudBuild | undefined;
let entry: string;
let scratch: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  build = compileLocalCloud('cli');
  entry = build.entry;
  scratch = await mkdtemp(join(tmpdir(), 'tideline-sim-cli-'));
}, 120_000);

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await build?.remove();
  await rm(scratch, { recursive: true, force: true });
});

interface Run {
  child: ChildProcessWithoutNullStreams;
  firstLine: Promise<string>;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[]): Run {
  const child = spawn(process.execPath, [entry, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const firstLine = new Promise<string>((resolveLine, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolveLine);
    child.once('exit', () => reject(new Error(`exited before printing a line; stderr: ${err}`)));
  });
  // Runs that are expected to fail never print a line; that is not an unhandled rejection.
  firstLine.catch(() => undefined);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  return { child, firstLine, stdout: () => out, stderr: () => err, exit };
}

interface FirstLine {
  url: string;
  projects: Array<{ id: string; name: string; access_key: string; secret_key: string }>;
  controlUrl: string | null;
  controlToken: string | null;
}

test.each(['SIGINT', 'SIGTERM'] as const)(
  'first stdout line is the URL and projects; the API works; %s stops it with exit 0',
  async (signal) => {
    const cli = run(['--port', '0', '--seed', '42', '--time-scale', '0.1']);
    const first = JSON.parse(await cli.firstLine) as FirstLine;
    expect(Object.keys(first)).toEqual(['url', 'projects', 'controlUrl', 'controlToken']);
    expect(first.controlUrl).toBe(new URL('/__sim', first.url).href);
    expect(first.controlToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/public\/api\/v1$/);
    expect(first.projects).toEqual([
      {
        id: expect.stringMatching(/^[a-z0-9]{10}$/),
        name: 'default',
        access_key: expect.any(String),
        secret_key: expect.any(String),
      },
    ]);
    const project = first.projects[0]!;
    const answer = await fetch(`${first.url}/projects`, {
      headers: { authorization: basicAuth(project.access_key, project.secret_key) },
    });
    expect(answer.status).toBe(200);
    // The current dialect by default: its unknown field rides along.
    expect(await answer.json()).toEqual([
      { id: project.id, name: 'default', [EXTRA_FIELD]: expect.any(Object) },
    ]);

    cli.child.kill(signal);
    expect(await cli.exit).toEqual({ code: 0, signal: null });
    expect(cli.stdout().trim().split('\n')).toHaveLength(1);
    expect(cli.stderr()).not.toContain(project.secret_key);
    expect(cli.stderr()).not.toContain(first.controlToken);
    expect(cli.stderr()).not.toContain('WARNING');
  },
);

test('a config file declares projects and credentials', async () => {
  const config = join(scratch, 'cloud.yaml');
  await writeFile(
    config,
    [
      'projects:',
      '  - id: abcdefghij',
      '    name: team',
      '    access_key: team-key',
      '    secret_key: team-secret-123',
      'durations:',
      '  queued: 10',
      'controlToken: team-control-token-0123',
      '',
    ].join('\n'),
  );
  const cli = run(['--config', config]);
  const first = JSON.parse(await cli.firstLine) as FirstLine;
  expect(first.projects).toEqual([
    { id: 'abcdefghij', name: 'team', access_key: 'team-key', secret_key: 'team-secret-123' },
  ]);
  expect(first.controlToken).toBe('team-control-token-0123');
  const health = await fetch(`${first.controlUrl}/health`, {
    headers: { authorization: 'Bearer team-control-token-0123' },
  });
  expect(health.status).toBe(200);
  cli.child.kill('SIGTERM');
  expect((await cli.exit).code).toBe(0);
});

async function expectUsageError(args: string[], pattern: RegExp): Promise<string> {
  const cli = run(args);
  expect(await cli.exit).toEqual({ code: 2, signal: null });
  const lines = cli.stderr().trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^local-cloud: /);
  expect(lines[0]).toMatch(pattern);
  expect(cli.stderr()).not.toMatch(/\n\s+at /);
  expect(cli.stdout()).toBe('');
  return lines[0]!;
}

test('bad flags exit 2 with one clear line on stderr', async () => {
  await expectUsageError(['--bogus'], /bogus/);
  await expectUsageError(['--port', 'eighty'], /--port/);
  await expectUsageError(['--time-scale', '0'], /--time-scale/);
  await expectUsageError(['--seed', '-3'], /--seed/);
  await expectUsageError(['--dialect', 'newest'], /--dialect: invalid value "newest" \(seed or current\)/);
});

test("the current dialect by default; the config key `dialect` picks the answers' shape, and --dialect overrides it", async () => {
  const config = join(scratch, 'dialect.yaml');
  await writeFile(config, 'dialect: seed\n');
  const cases = [
    { args: [], keyField: 'api_key' },
    { args: ['--config', config], keyField: 'apiKey' },
    { args: ['--config', config, '--dialect', 'current'], keyField: 'api_key' },
  ];
  for (const { args, keyField } of cases) {
    const cli = run(args);
    const first = JSON.parse(await cli.firstLine) as FirstLine;
    const project = first.projects[0]!;
    const answer = await fetch(`${first.url}/auth/info`, {
      headers: { authorization: basicAuth(project.access_key, project.secret_key) },
    });
    expect(answer.status).toBe(200);
    const info = (await answer.json()) as Record<string, unknown>;
    expect({ args, fields: Object.keys(info).filter((key) => /^api_?key$/i.test(key)) }).toEqual({
      args,
      fields: [keyField],
    });
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toEqual({ code: 0, signal: null });
  }
});

test('a bad config file exits 2 with one clear line, without echoing secrets', async () => {
  const invalid = join(scratch, 'invalid.yaml');
  await writeFile(invalid, 'projects:\n  - access_key: k\n    secret_key: short\ntimeScale: -1\n');
  const line = await expectUsageError(['--config', invalid], /timeScale/);
  expect(line).toMatch(/secret_key/);
  expect(line).not.toContain('short');
  const broken = join(scratch, 'broken.yaml');
  await writeFile(broken, 'projects: [\n');
  await expectUsageError(['--config', broken], /not valid YAML/);
  await expectUsageError(['--config', join(scratch, 'missing.yaml')], /cannot read/);
});

test('--no-control: no control token, and every /__sim path is a 404', async () => {
  const cli = run(['--no-control']);
  const first = JSON.parse(await cli.firstLine) as FirstLine;
  expect(first).toMatchObject({ controlUrl: null, controlToken: null });
  for (const path of ['/__sim/health', '/__sim/state']) {
    const answer = await fetch(new URL(path, first.url));
    expect([path, answer.status]).toEqual([path, 404]);
    expect(await answer.json()).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
  }
  const reset = await fetch(new URL('/__sim/reset', first.url), { method: 'POST' });
  expect(reset.status).toBe(404);
  cli.child.kill('SIGTERM');
  expect((await cli.exit).code).toBe(0);
  expect(cli.stderr()).toContain('control API off');
});

test('--host 0.0.0.0 prints a warning naming what is exposed', async () => {
  const cli = run(['--host', '0.0.0.0']);
  const first = JSON.parse(await cli.firstLine) as FirstLine;
  cli.child.kill('SIGTERM');
  expect((await cli.exit).code).toBe(0);
  const warning =
    cli
      .stderr()
      .split('\n')
      .find((line) => line.includes('WARNING')) ?? '';
  expect(warning).toMatch(/^local-cloud: WARNING: listening on 0\.0\.0\.0, not a loopback address/);
  expect(warning).toContain('the Cloud API');
  expect(warning).toContain('control API (/__sim');
  expect(warning).toContain('--no-control');
  expect(cli.stderr()).not.toContain(first.controlToken);
});
