// The command registry is the one source of the CLI's commands: `tideline --help`, `CMD --help`,
// `tideline help CMD` and the unknown-command hint all agree with it, every registered module
// carries the name it is registered under, and a deprecated alias still runs its command.
import { runCli } from '../../cli/main';
import {
  COMMAND_NAMES,
  COMMANDS,
  declarationOf,
  findCommand,
  type CommandDeclaration,
} from '../../cli/command-registry';
import { EXIT } from '../../cli/errors';
import { capturedStreams } from '../helpers/captured-streams';

async function tideline(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const { stdout, stderr, out, err } = capturedStreams();
  const code = await runCli(argv, {
    stdout,
    stderr,
    env: { NO_COLOR: '1' },
    cwd: process.cwd(),
    interrupted: new Promise(() => undefined),
  });
  return { code, out: out(), err: err() };
}

test('each command module carries the name it is registered under', () => {
  for (const name of COMMAND_NAMES) {
    expect({ name, spec: declarationOf(name).load().spec.name }).toEqual({ name, spec: name });
  }
});

test('`tideline --help` lists every command with its summary, in registry order', async () => {
  const { code, out } = await tideline(['--help']);
  expect(code).toBe(EXIT.OK);
  const listed = out
    .split('\n\n')
    .find((block) => block.startsWith('commands:'))
    ?.split('\n')
    .slice(1)
    .map((line) => /^ {2}(\S+)\s+(.*)$/.exec(line)?.slice(1, 3));
  expect(listed).toEqual(COMMAND_NAMES.map((name) => [name, declarationOf(name).summary]));
});

test.each(COMMAND_NAMES)('`%s --help` and `help %s` open with the registry summary', async (name) => {
  const direct = await tideline([name, '--help']);
  expect(direct.code).toBe(EXIT.OK);
  expect(direct.out.split('\n')[0]).toBe(`tideline ${name} — ${declarationOf(name).summary}`);
  expect(await tideline(['help', name])).toEqual(direct);
});

test('an unknown command is answered with the closest registered one', async () => {
  const { code, err } = await tideline(['valdate']);
  expect(code).toBe(EXIT.USAGE);
  expect(err).toContain('did you mean `tideline validate`?');
  // A near miss of a deprecated alias suggests the command's current name.
  expect((await tideline(['simulatr'])).err).toContain('did you mean `tideline local-cloud`?');
});

describe('the deprecated `simulator` command', () => {
  test('is found as `local-cloud`', () => {
    expect(findCommand('simulator')).toEqual({
      name: 'local-cloud',
      declaration: COMMANDS['local-cloud'],
      deprecatedAlias: 'simulator',
    });
  });

  test('runs local-cloud and prints one note naming the new spelling on stderr', async () => {
    const old = await tideline(['simulator', '--help']);
    const current = await tideline(['local-cloud', '--help']);
    expect(old.code).toBe(EXIT.OK);
    expect(old.out).toBe(current.out);
    expect(current.err).toBe('');
    expect(old.err).toBe(
      'tideline: `tideline simulator` is deprecated and will be removed; use `tideline local-cloud`\n',
    );
  });

  test('is not listed in `tideline --help`', async () => {
    expect((await tideline(['--help'])).out).not.toMatch(/^ {2}simulator\b/m);
  });
});

test('a command declared without a summary does not compile', () => {
  // @ts-expect-error -- `summary` is required
  const missing: CommandDeclaration = { interrupt: 'exit', load: COMMANDS.run.load };
  expect(missing.interrupt).toBe('exit');
});
