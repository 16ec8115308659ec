// The `tideline` command: global flags, dispatch to the command registry (cli/command-registry.ts:
// each command loaded only when used, so `tideline --help` starts fast), help, error printing,
// Ctrl-C, and the process exit code. This is the only module that ends the process; commands
// return exit codes.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { applyGlobals, GLOBAL_OPTIONS, isHelpRequest, splitCommandLine, usageError } from './args';
import {
  closestCommand,
  COMMAND_NAMES,
  declarationOf,
  findCommand,
  summaryOf,
  type InterruptMode,
} from './command-registry';
import type { CliContext } from './context';
import { isStackError } from '../stack/stack-error';
import { CliError, cliErrorOf, EXIT, isCliError } from './errors';
import { printCliError, printUnexpectedError } from './output/errors';
import { renderCommandHelp, renderMainHelp } from './output/help';

/** The version from package.json (found upwards from this file, in src and dist alike). */
export function cliVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tideline') return pkg.version ?? '0.0.0';
    }
    if (path.dirname(dir) === dir) return '0.0.0';
  }
}

export type CliIo = Pick<CliContext, 'stdout' | 'stderr' | 'env' | 'cwd' | 'interrupted'> &
  Partial<Pick<CliContext, 'stdin'>>;

/** Runs one command line and gives the exit code. Never exits the process. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const ctx: CliContext = { ...io, globals: { json: false } };
  try {
    const { before, command, rest } = splitCommandLine(argv);
    const topOptions = { ...GLOBAL_OPTIONS, version: { type: 'boolean', short: 'V' } } as const;
    let top: { values: Record<string, unknown> };
    try {
      top = parseArgs({ args: before, options: topOptions, allowPositionals: false, strict: true });
    } catch (error) {
      throw usageError(error, '', topOptions);
    }
    applyGlobals(ctx.globals, top.values);
    if (top.values.version === true) {
      ctx.stdout.write(
        ctx.globals.json ? `${JSON.stringify({ version: cliVersion() })}\n` : `tideline ${cliVersion()}\n`,
      );
      return EXIT.OK;
    }
    if (command === undefined || command === 'help') {
      const topic = command === 'help' ? rest[0] : undefined;
      if (topic !== undefined) return await dispatch(topic, ['--help'], ctx);
      const commands = COMMAND_NAMES.map((name) => ({ name, summary: declarationOf(name).summary }));
      ctx.stdout.write(renderMainHelp(commands, cliVersion()));
      return top.values.help === true || command === 'help' ? EXIT.OK : EXIT.USAGE;
    }
    if (top.values.help === true) return await dispatch(command, ['--help', ...rest], ctx);
    return await dispatch(command, rest, ctx);
  } catch (error) {
    if (isHelpRequest(error)) {
      const summary = summaryOf(error.spec);
      if (summary === undefined) throw new Error(`no summary for "${error.spec.name}"`);
      ctx.stdout.write(renderCommandHelp(error.spec, summary));
      return EXIT.OK;
    }
    if (isCliError(error) || isStackError(error)) {
      const failure = isStackError(error) ? cliErrorOf(error) : error;
      printCliError(ctx, failure);
      return failure.exitCode;
    }
    printUnexpectedError(ctx, error);
    return EXIT.FAILED;
  }
}

async function dispatch(word: string, argv: string[], ctx: CliContext): Promise<number> {
  const found = findCommand(word);
  if (found === undefined) {
    const closest = closestCommand(word);
    throw new CliError(
      'CLI_USAGE',
      `unknown command "${word}"`,
      closest
        ? `did you mean \`tideline ${closest}\`? (see tideline --help)`
        : 'see `tideline --help` for the commands',
    );
  }
  if (found.deprecatedAlias !== undefined) {
    ctx.stderr.write(
      `tideline: \`tideline ${found.deprecatedAlias}\` is deprecated and will be removed; use \`tideline ${found.name}\`\n`,
    );
  }
  return found.declaration.load().run(argv, ctx);
}

/** Writes nothing, but resolves once everything written before has been handed to the OS. */
function flushed(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    if (!stream.write('', () => resolve())) stream.once('drain', () => resolve());
  });
}

/** The process entry point (bin/tideline.js): runs the command line and exits with its code. */
export function main(argv: string[] = process.argv.slice(2)): void {
  const command = splitCommandLine(argv).command;
  const mode: InterruptMode = (command && findCommand(command)?.declaration.interrupt) || 'exit';
  let interrupt: () => void = () => undefined;
  const interrupted = new Promise<void>((resolve) => {
    interrupt = resolve;
  });
  let interrupts = 0;
  const finish = (code: number): void => {
    void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => process.exit(code));
  };
  // `tideline list | head`: the reader went away; stop quietly (a followed run goes on).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT.OK);
      throw error;
    });
  }
  process.on('SIGINT', () => {
    interrupts++;
    interrupt();
    if (mode === 'command') return;
    if (mode === 'exit' || interrupts > 1) {
      process.exit(130);
    }
    // A detaching command returns within moments; if it does not, do not leave the user stuck.
    setTimeout(() => process.exit(130), 5_000).unref();
  });
  runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    interrupted,
  }).then(finish, (error: unknown) => {
    process.stderr.write(
      `tideline: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    finish(EXIT.FAILED);
  });
}

if (require.main === module) main();
