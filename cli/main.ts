// The `tideline` command: global flags, the command table (each command loaded only when used, so
// `tideline --help` starts fast), error printing, Ctrl-C, and the process exit code. This is the
// only module that ends the process; commands return exit codes.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { closestName } from '../dsl/suggest';
import { applyGlobals, GLOBAL_OPTIONS, splitCommandLine, usageError } from './args';
import type { CliContext, Command } from './context';
import { isStackError } from '../stack/stack-error';
import { CliError, cliErrorOf, EXIT, isCliError } from './errors';
import { printCliError, printUnexpectedError } from './output/errors';
import { renderMainHelp } from './output/help';
import { COMMAND_SUMMARIES } from './command-summaries';

/**
 * What Ctrl-C means while a command runs: `detach` — the command stops following and returns
 * (a second Ctrl-C exits at once); `exit` — the process ends at once; `command` — the command
 * handles it (servers and workers that shut down gracefully).
 */
type InterruptMode = 'detach' | 'exit' | 'command';

interface CommandEntry {
  name: string;
  summary: string;
  interrupt: InterruptMode;
  load: () => Command;
}

/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
export const COMMANDS: CommandEntry[] = [
  {
    name: 'run',
    summary: COMMAND_SUMMARIES.run,
    interrupt: 'detach',
    load: () => (require('./commands/run') as typeof import('./commands/run')).runCommand,
  },
  {
    name: 'validate',
    summary: COMMAND_SUMMARIES.validate,
    interrupt: 'exit',
    load: () => (require('./commands/validate') as typeof import('./commands/validate')).validateCommand,
  },
  {
    name: 'test',
    summary: COMMAND_SUMMARIES.test,
    interrupt: 'exit',
    load: () => (require('./commands/test') as typeof import('./commands/test')).testCommand,
  },
  {
    name: 'init',
    summary: COMMAND_SUMMARIES.init,
    interrupt: 'exit',
    load: () => (require('./commands/init') as typeof import('./commands/init')).initCommand,
  },
  {
    name: 'plan',
    summary: COMMAND_SUMMARIES.plan,
    interrupt: 'exit',
    load: () => (require('./commands/plan') as typeof import('./commands/plan')).planCommand,
  },
  {
    name: 'status',
    summary: COMMAND_SUMMARIES.status,
    interrupt: 'detach',
    load: () => (require('./commands/status') as typeof import('./commands/status')).statusCommand,
  },
  {
    name: 'list',
    summary: COMMAND_SUMMARIES.list,
    interrupt: 'exit',
    load: () => (require('./commands/list') as typeof import('./commands/list')).listCommand,
  },
  {
    name: 'history',
    summary: COMMAND_SUMMARIES.history,
    interrupt: 'exit',
    load: () => (require('./commands/history') as typeof import('./commands/history')).historyCommand,
  },
  {
    name: 'cancel',
    summary: COMMAND_SUMMARIES.cancel,
    interrupt: 'detach',
    load: () => (require('./commands/cancel') as typeof import('./commands/cancel')).cancelCommand,
  },
  {
    name: 'approve',
    summary: COMMAND_SUMMARIES.approve,
    interrupt: 'exit',
    load: () => (require('./commands/approve') as typeof import('./commands/approve')).approveCommand,
  },
  {
    name: 'reject',
    summary: COMMAND_SUMMARIES.reject,
    interrupt: 'exit',
    load: () => (require('./commands/approve') as typeof import('./commands/approve')).rejectCommand,
  },
  {
    name: 'keys',
    summary: COMMAND_SUMMARIES.keys,
    interrupt: 'exit',
    load: () => (require('./commands/keys') as typeof import('./commands/keys')).keysCommand,
  },
  {
    name: 'catalog',
    summary: COMMAND_SUMMARIES.catalog,
    interrupt: 'exit',
    load: () => (require('./commands/catalog') as typeof import('./commands/catalog')).catalogCommand,
  },
  {
    name: 'audit',
    summary: COMMAND_SUMMARIES.audit,
    interrupt: 'exit',
    load: () => (require('./commands/audit') as typeof import('./commands/audit')).auditCommand,
  },
  {
    name: 'retry',
    summary: COMMAND_SUMMARIES.retry,
    interrupt: 'exit',
    load: () => (require('./commands/hold-actions') as typeof import('./commands/hold-actions')).retryCommand,
  },
  {
    name: 'skip',
    summary: COMMAND_SUMMARIES.skip,
    interrupt: 'exit',
    load: () => (require('./commands/hold-actions') as typeof import('./commands/hold-actions')).skipCommand,
  },
  {
    name: 'rollback',
    summary: COMMAND_SUMMARIES.rollback,
    interrupt: 'exit',
    load: () =>
      (require('./commands/hold-actions') as typeof import('./commands/hold-actions')).rollbackCommand,
  },
  {
    name: 'rerun',
    summary: COMMAND_SUMMARIES.rerun,
    interrupt: 'detach',
    load: () => (require('./commands/rerun') as typeof import('./commands/rerun')).rerunCommand,
  },
  {
    name: 'schedule',
    summary: COMMAND_SUMMARIES.schedule,
    interrupt: 'exit',
    load: () => (require('./commands/schedule') as typeof import('./commands/schedule')).scheduleCommand,
  },
  {
    name: 'upgrade',
    summary: COMMAND_SUMMARIES.upgrade,
    interrupt: 'exit',
    load: () => (require('./commands/upgrade') as typeof import('./commands/upgrade')).upgradeCommand,
  },
  {
    name: 'setup',
    summary: COMMAND_SUMMARIES.setup,
    interrupt: 'exit',
    load: () => (require('./commands/setup') as typeof import('./commands/setup')).setupCommand,
  },
  {
    name: 'worker',
    summary: COMMAND_SUMMARIES.worker,
    interrupt: 'command',
    load: () => (require('./commands/worker') as typeof import('./commands/worker')).workerCommand,
  },
  {
    name: 'simulator',
    summary: COMMAND_SUMMARIES.simulator,
    interrupt: 'command',
    load: () => (require('./commands/simulator') as typeof import('./commands/simulator')).simulatorCommand,
  },
  {
    name: 'codec-server',
    summary: COMMAND_SUMMARIES['codec-server'],
    interrupt: 'command',
    load: () =>
      (require('./commands/codec-server') as typeof import('./commands/codec-server')).codecServerCommand,
  },
  {
    name: 'dev',
    summary: COMMAND_SUMMARIES.dev,
    interrupt: 'command',
    load: () => (require('./commands/dev') as typeof import('./commands/dev')).devCommand,
  },
  {
    name: 'cluster',
    summary: COMMAND_SUMMARIES.cluster,
    interrupt: 'exit',
    load: () => (require('./commands/cluster') as typeof import('./commands/cluster')).clusterCommand,
  },
  {
    name: 'demo',
    summary: COMMAND_SUMMARIES.demo,
    interrupt: 'command',
    load: () => (require('./commands/demo') as typeof import('./commands/demo')).demoCommand,
  },
];
/* eslint-enable @typescript-eslint/no-require-imports */

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((entry) => entry.name === name);
}

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

export type CliIo = Pick<CliContext, 'stdout' | 'stderr' | 'env' | 'cwd' | 'interrupted'>;

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
      ctx.stdout.write(renderMainHelp(COMMANDS, cliVersion()));
      return top.values.help === true || command === 'help' ? EXIT.OK : EXIT.USAGE;
    }
    if (top.values.help === true) return await dispatch(command, ['--help', ...rest], ctx);
    return await dispatch(command, rest, ctx);
  } catch (error) {
    if (isCliError(error) || isStackError(error)) {
      const failure = isStackError(error) ? cliErrorOf(error) : error;
      printCliError(ctx, failure);
      return failure.exitCode;
    }
    printUnexpectedError(ctx, error);
    return EXIT.FAILED;
  }
}

async function dispatch(name: string, argv: string[], ctx: CliContext): Promise<number> {
  const entry = findCommand(name);
  if (entry === undefined) {
    const closest = closestName(
      name,
      COMMANDS.map((c) => c.name),
    );
    throw new CliError(
      'CLI_USAGE',
      `unknown command "${name}"`,
      closest
        ? `did you mean \`tideline ${closest}\`? (see tideline --help)`
        : 'see `tideline --help` for the commands',
    );
  }
  return entry.load()(argv, ctx);
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
  const mode: InterruptMode = (command && findCommand(command)?.interrupt) || 'exit';
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
