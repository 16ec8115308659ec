// The CLI on hostile or careless input, in process (cli/main.ts runCli): runbook paths that are
// not runbook files, child paths out of the tree, bad --id values and run ID arguments, config
// files that are not files, input sources (@FILE, stdin, TIDELINE_INPUT_*), the warnings for a
// secret given on the command line or in a config file others can read, and endpoints that are
// not Temporal. Each case: exit code, the exact message, no stack trace, within a time bound.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gatherInputs, secretOnCommandLineWarning } from '../../cli/input-sources';
import { runCli } from '../../cli/main';
import { capturedStreams } from '../helpers/captured-streams';

// A hostile input must not hang the CLI: each case has a minute (loaded machines are slow), far
// less than a YAML bomb or an unanswered connection would take.
jest.setTimeout(60_000);

const KEYS = `test:${Buffer.alloc(32, 7).toString('base64')}`;
const SECRET_RUNBOOK = [
  'apiVersion: tideline/v1',
  'name: secret-demo',
  'description: d',
  'inputs:',
  '  new_password: { type: string, secret: true }',
  '  note: { type: string, default: x }',
  'steps:',
  '  - id: s',
  '    sleep: 1s',
  '',
].join('\n');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tideline-cli-'));
  mkdirSync(join(dir, 'folder'));
  mkdirSync(join(dir, 'ops'));
  writeFileSync(join(dir, 'secret.yaml'), SECRET_RUNBOOK);
  writeFileSync(join(dir, 'pw.txt'), 'from-a-file\n');
  writeFileSync(join(dir, 'big.yaml'), `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
  writeFileSync(
    join(dir, 'ops', 'escape.yaml'),
    SECRET_RUNBOOK.replace('    sleep: 1s', '    runbook: ../../../etc/passwd'),
  );
  writeFileSync(
    join(dir, 'ops', 'shared.yaml'),
    SECRET_RUNBOOK.replace('    sleep: 1s', '    runbook: ../secret.yaml\n    with: { new_password: p }'),
  );
  let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i <= 9; i++)
    bomb += `a${i}: &a${i} [${Array(9)
      .fill(`*a${i - 1}`)
      .join(', ')}]\n`;
  writeFileSync(join(dir, 'bomb-inputs.yaml'), bomb);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Ran {
  code: number;
  out: string;
  err: string;
}

async function tideline(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const { stdout, stderr, out, err } = capturedStreams();
  const code = await runCli(args, {
    stdout,
    stderr,
    env: { TIDELINE_ENCRYPTION_KEYS: KEYS, ...env },
    cwd: dir,
    interrupted: new Promise(() => undefined),
  });
  expect(`${out()}${err()}`).not.toMatch(/unexpected error|\n\s+at /);
  return { code, out: out(), err: err() };
}

describe('runbook paths', () => {
  const cases: [string, string[], number, string][] = [
    [
      'a directory (run)',
      ['run', 'folder'],
      2,
      'tideline: folder is a directory, not a runbook file\n  hint: give the path of a runbook YAML file\n',
    ],
    [
      '/dev/zero (plan)',
      ['plan', '/dev/zero'],
      2,
      'tideline: /dev/zero is a device, not a runbook file\n  hint: give the path of a runbook YAML file\n',
    ],
    [
      'a 2 MiB file (run)',
      ['run', 'big.yaml'],
      2,
      'tideline: big.yaml is larger than 1 MiB, the limit for a runbook file\n  hint: give the path of a runbook YAML file\n',
    ],
    [
      'a missing --runbooks-root',
      ['validate', 'secret.yaml', '--runbooks-root', 'nope'],
      2,
      'tideline: --runbooks-root nope is not a folder\n  hint: give the folder that holds the runbook and the child runbooks it names\n',
    ],
  ];
  it.each(cases)('%s: its exit code and one message', async (_, args, code, stderr) => {
    const ran = await tideline(args);
    expect(ran).toEqual({ code, out: '', err: stderr });
  });

  it('validate reports a folder with no runbook and /dev/zero as problems of their own', async () => {
    const ran = await tideline(['validate', 'folder', '/dev/zero']);
    expect(ran.code).toBe(2);
    expect(ran.out).toContain(
      '✗ folder: 1 problem\nfolder: is a folder with no .yaml or .yml file under it\n',
    );
    expect(ran.out).toContain('✗ /dev/zero: 1 problem\n/dev/zero: is a device, not a runbook file\n');
  });

  it('validate checks every YAML file under a folder, nested ones too, in name order', async () => {
    const ran = await tideline(['validate', 'ops']);
    expect(ran.code).toBe(2);
    expect(ran.out.match(/^[✓✗] [^\s:]+/gm)).toEqual(['✗ ops/escape.yaml', '✗ ops/shared.yaml']);
    const shared = await tideline(['validate', 'ops', '--runbooks-root', '.', '--json']);
    const report = JSON.parse(shared.out) as { runbooks: { file: string; ok: boolean }[] };
    expect(report.runbooks.map((r) => [r.file, r.ok])).toEqual([
      ['ops/escape.yaml', false],
      ['ops/shared.yaml', true],
    ]);
  });

  it('a child out of the tree is an error at its step; --runbooks-root shares a folder', async () => {
    const escape = await tideline(['validate', 'ops/escape.yaml']);
    expect(escape.code).toBe(2);
    expect(escape.out).toContain(
      "ops/escape.yaml:9:14: child runbook `../../../etc/passwd` is outside the runbooks' folder\n",
    );
    expect((await tideline(['validate', 'ops/shared.yaml'])).code).toBe(2);
    const shared = await tideline(['validate', 'ops/shared.yaml', '--runbooks-root', '.']);
    expect(shared).toMatchObject({ code: 0, err: '' });
  });
});

describe('--id', () => {
  it.each([
    ['x'.repeat(5000), "--id must be at most 1000 bytes (Temporal's workflow id limit); it has 5000"],
    ['é'.repeat(501), "--id must be at most 1000 bytes (Temporal's workflow id limit); it has 1002"],
    ['a\nb', '--id must not contain control characters (newlines, tabs …)'],
    ['  ', '--id must not be empty'],
  ])('%# is refused before connecting (exit 2)', async (id, message) => {
    const ran = await tideline(['run', 'secret.yaml', '--id', id, '--address', '127.0.0.1:1']);
    expect(ran).toEqual({
      code: 2,
      out: '',
      err: `tideline: ${message}\n  hint: choose a shorter plain-text run id, or leave --id out\n`,
    });
  });
});

describe('run ID arguments', () => {
  const commands: string[][] = [
    ['status'],
    ['cancel'],
    ['history'],
    ['approve'],
    ['reject'],
    ['retry'],
    ['skip', '--step', 's'],
    ['rollback'],
    ['rerun'],
  ];
  const ids: [string, string, string][] = [
    [
      'a 5,000-character id',
      'x'.repeat(5000),
      "must be at most 1000 bytes (Temporal's workflow id limit); it has 5000",
    ],
    ['an id with a newline', 'run\n1', 'must not contain control characters (newlines, tabs …)'],
  ];
  const cases = commands.flatMap((command) =>
    ids.map(([label, id, rule]) => [command[0], label, command, id, rule] as const),
  );
  it.each(cases)('%s with %s is refused before connecting (exit 2)', async (...row) => {
    const [, , command, id, rule] = row;
    const [name, ...flags] = command;
    const ran = await tideline([name!, id, ...flags, '--address', '127.0.0.1:1']);
    expect(ran).toEqual({
      code: 2,
      out: '',
      err: `tideline: the run ID ${rule}\n  hint: give a run ID as \`tideline list\` shows it\n`,
    });
  });
});

describe('--config', () => {
  it.each([
    ['/dev/zero', () => '/dev/zero', 'is a device, not a config file'],
    ['a directory', () => join(dir, 'folder'), 'is a directory, not a config file'],
    ['a 2 MiB file', () => join(dir, 'big.yaml'), 'is larger than 1 MiB, the limit for a config file'],
  ])('%s: exit 2 with the file message, before connecting', async (_, file, reason) => {
    for (const args of [['list'], ['status', 'some-run']]) {
      const ran = await tideline([...args, '--config', file(), '--address', '127.0.0.1:1']);
      expect(ran).toEqual({
        code: 2,
        out: '',
        err: `tideline: the config file ${file()} ${reason}\n  hint: check --config or TIDELINE_CONFIG\n`,
      });
    }
  });

  const onPosix = process.platform === 'win32' ? it.skip : it;
  onPosix(
    'a secret key in a file others can read: one warning line, then the command goes on',
    async () => {
      const file = join(dir, 'open-config.yaml');
      writeFileSync(file, 'cloud:\n  projects:\n    p1: { accessKey: ak, secretKey: sk-1 }\n');
      chmodSync(file, 0o644);
      const listed = await tideline(['list', '--config', file, '--address', '127.0.0.1:1']);
      expect(listed.code).toBe(3);
      const warning = `tideline: warning: config file ${file} (it holds a Cloud API secret key) is readable by other users; run: chmod 600 ${file}\n`;
      expect(listed.err.startsWith(`${warning}tideline: cannot reach Temporal`)).toBe(true);
      expect(listed.err.split('warning').length).toBe(2);
    },
    30_000,
  );
});

describe('inputs', () => {
  const ctx = (env: NodeJS.ProcessEnv = {}) => {
    let err = '';
    const stderr = new PassThrough();
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    return { ctx: { cwd: dir, env, stderr }, err: () => err };
  };
  const declared = {
    inputs: { new_password: { type: 'string', secret: true }, note: { type: 'string' } },
  } as never;

  it('precedence: TIDELINE_INPUT_* < --inputs - (stdin) < -i, with @FILE; no warning without literals', async () => {
    const stdin = new PassThrough();
    stdin.end('note: from-stdin\nnew_password: from-stdin\n');
    const { ctx: context, err } = ctx({
      TIDELINE_INPUT_NOTE: 'from-env',
      TIDELINE_INPUT_NEW_PASSWORD: 'env',
    });
    expect(await gatherInputs(declared, { inputsFile: '-', stdin }, context)).toEqual({
      note: 'from-stdin',
      new_password: 'from-stdin',
    });
    expect(await gatherInputs(declared, { pairs: ['new_password=@pw.txt', 'note=@@at'] }, context)).toEqual({
      note: '@at',
      new_password: 'from-a-file',
    });
    expect(await gatherInputs(declared, {}, context)).toEqual({ note: 'from-env', new_password: 'env' });
    expect(err()).toBe('');
  });

  it('a secret given literally gets one warning line naming the safer forms (run, plan, schedule create)', async () => {
    const warning = `${secretOnCommandLineWarning('new_password')}\n`;
    expect(warning).toBe(
      'tideline: warning: secret input `new_password` was given on the command line, where other users can see it (ps, shell history); use -i new_password=@FILE, --inputs FILE (--inputs - reads stdin) or TIDELINE_INPUT_NEW_PASSWORD instead\n',
    );
    const plan = await tideline(['plan', 'secret.yaml', '-i', 'new_password=hunter2', '-i', 'note=n']);
    expect(plan.code).toBe(0);
    expect(plan.err).toBe(warning);
    expect(plan.out).not.toContain('hunter2');
    const schedule = await tideline([
      'schedule',
      'create',
      'nightly',
      '-r',
      'secret.yaml',
      '--every',
      '1h',
      '-i',
      'new_password=hunter2',
      '--address',
      '127.0.0.1:1',
    ]);
    expect(schedule.code).toBe(3);
    expect(schedule.err.startsWith(warning)).toBe(true);
    expect((await tideline(['plan', 'secret.yaml', '-i', 'new_password=@pw.txt'])).err).toBe('');
  }, 60_000);

  const bad: [string, string[], string][] = [
    [
      '--inputs FOLDER',
      ['--inputs', 'folder'],
      'tideline: the inputs file folder is a directory, not an inputs file\n',
    ],
    [
      '--inputs /dev/zero',
      ['--inputs', '/dev/zero'],
      'tideline: the inputs file /dev/zero is a device, not an inputs file\n',
    ],
    [
      '--inputs BIG',
      ['--inputs', 'big.yaml'],
      'tideline: the inputs file big.yaml is larger than 1 MiB, the limit for an inputs file\n',
    ],
    [
      '-i name=@missing',
      ['-i', 'note=@missing.txt'],
      'tideline: the file for input `note` missing.txt not found\n  hint: -i note=@FILE reads the value from FILE; for a value that starts with @, write @@\n',
    ],
    [
      '--inputs ALIAS-BOMB',
      ['--inputs', 'bomb-inputs.yaml'],
      'tideline: the inputs file bomb-inputs.yaml: YAML aliases expand to more than 100000 nodes (the limit); `*a4` and later aliases over it are not checked (line 6, column 10)\n  hint: use fewer or smaller aliases (anchors are copied wherever they are used)\n',
    ],
  ];
  it.each(bad)('%s: exit 2 with its message', async (_, args, stderr) => {
    expect(await tideline(['plan', 'secret.yaml', ...args])).toEqual({ code: 2, out: '', err: stderr });
  });
});

describe('input values nested too deeply', () => {
  const LISTS =
    'apiVersion: tideline/v1\nname: lists\ndescription: d\ninputs:\n  regions: { type: list, default: [] }\nsteps:\n  - { id: s, sleep: 1s }\n';
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const refused =
    'tideline: input `regions` is nested deeper than 100 levels (the limit)\n  hint: flatten the value; lists and maps of a few levels are all a runbook needs\n';
  beforeAll(() => {
    writeFileSync(join(dir, 'lists.yaml'), LISTS);
    writeFileSync(join(dir, 'deep.json'), deep(60_000));
  });

  it.each([
    ['-i', ['-i', `regions=${deep(60_000)}`], {}],
    ['-i @FILE', ['-i', 'regions=@deep.json'], {}],
    ['TIDELINE_INPUT_REGIONS', [], { TIDELINE_INPUT_REGIONS: deep(60_000) }],
  ])('%s: exit 2 naming the limit, no stack overflow', async (_, args, env) => {
    expect(await tideline(['plan', 'lists.yaml', ...args], env)).toEqual({ code: 2, out: '', err: refused });
  });

  it('100 levels are fine', async () => {
    expect((await tideline(['plan', 'lists.yaml', '-i', `regions=${deep(100)}`])).code).toBe(0);
  });
});

describe('retry --with and skip --output nested too deeply', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  it.each([
    ['retry', '--with', `{"regions":${deep(60_000)}}`],
    ['skip', '--output', deep(60_000)],
  ])('%s %s: exit 2 naming the limit before anything is sent', async (verb, option, value) => {
    const args = [verb, 'some-run', '--step', 'create', option, value];
    expect(await tideline(args)).toEqual({
      code: 2,
      out: '',
      err: `tideline: ${option} is nested deeper than 100 levels (the limit)\n  hint: flatten the value; lists and maps of a few levels are all a step needs\n`,
    });
  });
});

describe('endpoints that are not Temporal: exit 3 with a hint', () => {
  let http: Server;
  let grpc404: Http2Server;
  const address = (server: Server | Http2Server): string =>
    `127.0.0.1:${(server.address() as { port: number }).port}`;
  beforeAll(async () => {
    http = createServer((_, res) => res.end('hello'));
    grpc404 = createHttp2Server((_, res) => {
      res.statusCode = 404;
      res.end('not here');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => grpc404.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    http.close();
    grpc404.close();
  });

  it('a plain HTTP/1 server', async () => {
    const ran = await tideline(['list', '--address', address(http)]);
    expect(ran.code).toBe(3);
    expect(ran.err).toMatch(
      new RegExp(`^tideline: cannot reach Temporal at ${address(http)} \\(.+\\)\n {2}hint: `),
    );
  }, 60_000);

  it('an HTTP/2 server that answers 404 (a web server, a proxy)', async () => {
    for (const args of [['list'], ['status', 'some-run']]) {
      const ran = await tideline([...args, '--address', address(grpc404)]);
      expect(ran).toEqual({
        code: 3,
        out: '',
        err:
          `tideline: the server at ${address(grpc404)} does not answer as a Temporal frontend (Received HTTP status code 404)\n` +
          "  hint: point --address / TEMPORAL_ADDRESS at Temporal's gRPC frontend (port 7233 by default; not the Web UI's 8233, not a proxy that does not pass gRPC)\n",
      });
    }
  });
});
