// Command-line parsing and settings resolution of the tideline CLI: global flags before or after
// the command, positionals, usage errors with suggestions, and flags > env > config file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  choiceOption,
  HelpRequest,
  integerOption,
  parseCommand,
  splitCommandLine,
  type CommandSpec,
} from '../../cli/args';
import type { CliContext } from '../../cli/context';
import { isCliError } from '../../cli/errors';
import { printUnexpectedError } from '../../cli/output/errors';
import { resolveSettings, settingsEnvironment } from '../../cli/settings';
import { capturedStreams } from '../helpers/captured-streams';

const SPEC = {
  name: 'demo-cmd',
  usage: 'FILE [--id ID]',
  summary: 'a command for tests',
  options: {
    id: { type: 'string' },
    detach: { type: 'boolean', short: 'd' },
    input: { type: 'string', short: 'i', multiple: true },
  },
  optionHelp: [],
  examples: [],
  positionals: { min: 1, max: 1, names: 'the FILE' },
} satisfies CommandSpec;

function context(
  env: NodeJS.ProcessEnv = {},
  cwd = process.cwd(),
): CliContext & { out: () => string; err: () => string } {
  const { stdout, stderr, out, err } = capturedStreams();
  return {
    stdout,
    stderr,
    env,
    cwd,
    globals: { json: false },
    interrupted: new Promise(() => undefined),
    out,
    err,
  };
}

function usageErrorOf(action: () => unknown): { message: string; hint?: string; exitCode: number } {
  try {
    action();
  } catch (error) {
    if (isCliError(error))
      return {
        message: error.message,
        exitCode: error.exitCode,
        ...(error.hint ? { hint: error.hint } : {}),
      };
    throw error;
  }
  throw new Error('expected a usage error');
}

describe('parseCommand', () => {
  test('accepts the command options and the global ones anywhere', () => {
    const ctx = context();
    const parsed = parseCommand(
      SPEC,
      ['--address', 'h:1', 'file.yaml', '-i', 'a=1', '-d', '-i', 'b=2', '--json', '--task-queue', 'q'],
      ctx,
    );
    expect(parsed).toEqual({
      values: expect.objectContaining({ detach: true, input: ['a=1', 'b=2'] }),
      positionals: ['file.yaml'],
    });
    expect(ctx.globals).toEqual({ json: true, address: 'h:1', taskQueue: 'q' });
  });

  test('--help wins over missing positionals', () => {
    let thrown: unknown;
    try {
      parseCommand(SPEC, ['--help'], context());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HelpRequest);
    expect((thrown as HelpRequest).spec).toBe(SPEC);
  });

  test('unknown options name the closest known one', () => {
    expect(usageErrorOf(() => parseCommand(SPEC, ['f', '--detahc'], context()))).toEqual({
      message: 'unknown option --detahc',
      hint: 'did you mean --detach? (see `tideline demo-cmd --help`)',
      exitCode: 2,
    });
  });

  test('missing values, missing and extra positionals are usage errors', () => {
    expect(usageErrorOf(() => parseCommand(SPEC, ['f', '--id'], context())).message).toBe(
      'option --id needs a value',
    );
    expect(usageErrorOf(() => parseCommand(SPEC, ['f', '--id', '-x'], context()))).toEqual({
      message: 'option --id needs a value; the next argument starts with -',
      hint: 'to give a value that starts with -, write --id=VALUE (see `tideline demo-cmd --help`)',
      exitCode: 2,
    });
    expect(usageErrorOf(() => parseCommand(SPEC, ['f', '-i', '-5'], context())).hint).toBe(
      'to give a value that starts with -, write --input=VALUE (see `tideline demo-cmd --help`)',
    );
    expect(usageErrorOf(() => parseCommand(SPEC, ['f', '-i'], context())).message).toBe(
      'option -i needs a value',
    );
    expect(usageErrorOf(() => parseCommand(SPEC, [], context())).message).toBe('missing the FILE');
    expect(usageErrorOf(() => parseCommand(SPEC, ['a', 'b'], context())).message).toBe(
      'unexpected argument b',
    );
  });
});

test('splitCommandLine finds the command after global flags with values', () => {
  expect(splitCommandLine(['--address', 'h:1', '--json', 'run', 'f.yaml', '--id', 'x'])).toEqual({
    before: ['--address', 'h:1', '--json'],
    command: 'run',
    rest: ['f.yaml', '--id', 'x'],
  });
  expect(splitCommandLine(['--help'])).toEqual({ before: ['--help'], rest: [] });
});

test('integer and choice options are checked', () => {
  expect(integerOption('limit', undefined, 1, 20)).toBe(20);
  expect(integerOption('limit', '5', 1, 20)).toBe(5);
  expect(usageErrorOf(() => integerOption('limit', '0', 1, 20)).message).toBe(
    '--limit must be a whole number of at least 1',
  );
  expect(choiceOption('format', 'mermaid', ['text', 'mermaid'] as const, 'text')).toBe('mermaid');
  expect(
    usageErrorOf(() => choiceOption('format', 'svg', ['text', 'mermaid'] as const, 'text')).message,
  ).toBe('--format must be one of text, mermaid');
});

describe('settings: flags > environment > config file > defaults', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tideline-cli-'));
  const config = path.join(dir, 'tideline.yaml');
  writeFileSync(
    config,
    'taskQueue: from-file\ntemporal:\n  address: file-host:7233\n  namespace: file-ns\ncloud:\n  baseUrl: https://x\n',
  );

  test('the config file fills what flags and env leave open', () => {
    const ctx = context({ TIDELINE_CONFIG: 'tideline.yaml', TEMPORAL_NAMESPACE: 'env-ns' }, dir);
    ctx.globals.address = 'flag-host:1';
    expect(resolveSettings(ctx)).toMatchObject({
      address: 'flag-host:1',
      namespace: 'env-ns',
      taskQueue: 'from-file',
      configFile: config,
      sources: { address: 'flag', namespace: 'env', taskQueue: 'config' },
    });
  });

  test('defaults without a config file; the worker gets the resolved values', () => {
    const ctx = context({ TIDELINE_TASK_QUEUE: 'env-q' });
    expect(resolveSettings(ctx)).toMatchObject({
      address: undefined,
      namespace: undefined,
      taskQueue: 'env-q',
      sources: { address: 'default' },
    });
    ctx.globals.config = config;
    expect(settingsEnvironment(ctx)).toMatchObject({
      TEMPORAL_ADDRESS: 'file-host:7233',
      TEMPORAL_NAMESPACE: 'file-ns',
      TIDELINE_TASK_QUEUE: 'env-q',
      TIDELINE_CONFIG: config,
    });
  });

  test('a missing or malformed config file is a usage error that quotes nothing from it', () => {
    const ctx = context({}, dir);
    ctx.globals.config = 'missing.yaml';
    expect(usageErrorOf(() => resolveSettings(ctx)).message).toBe(
      `cannot read the config file ${path.join(dir, 'missing.yaml')} (ENOENT)`,
    );
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'temporal: [unclosed\n  secretKey: SK_do_not_print\n');
    ctx.globals.config = bad;
    const error = usageErrorOf(() => resolveSettings(ctx));
    expect(error.message).toMatch(/is not valid YAML at line \d+, column \d+$/);
    expect(error.message).not.toContain('SK_do_not_print');
  });
});

describe('unexpected errors', () => {
  test('print one line and how to see the stack', () => {
    const ctx = context();
    printUnexpectedError(ctx, Object.assign(new Error('boom\nsecond line'), { code: 'E_SOMETHING' }));
    expect(ctx.err()).toBe(
      'tideline: unexpected error (E_SOMETHING): boom\n  hint: set TIDELINE_DEBUG=1 to see the stack trace\n',
    );
  });

  test('print the stack with TIDELINE_DEBUG=1', () => {
    const ctx = context({ TIDELINE_DEBUG: '1' });
    printUnexpectedError(ctx, new Error('boom'));
    expect(ctx.err()).toMatch(/^tideline: unexpected error: boom\nError: boom\n\s+at /);
  });
});
