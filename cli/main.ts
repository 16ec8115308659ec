// The `tideline` command: global flags, the command table (each command loaded only when used, so
// `tideline --help` starts fast), error printing, Ctrl-C, and the process exit code. This is the
// only module that ends the process; commands return exit codes.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { closestName } from '../dsl/suggest';
import { applyGlobals, GLOBAL_OPTIONS, splitCommandLine, usageError } from './args';
import type { CliContext, Command } from './context';
import { CliError, EXIT, isCliError } from './errors';
import { printCliError, printUnexpectedError } from './output/errors';
import { renderMainHelp } from './output/help';

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
    summary: 'validate a runbook, start it and follow its progress',
    interrupt: 'detach',
    load: () => (require('./commands/run') as typeof import('./commands/run')).runCommand,
  },
  {
    name: 'validate',
    summary: 'check runbooks and print every problem (file:line:column)',
    interrupt: 'exit',
    load: () => (require('./commands/validate') as typeof import('./commands/validate')).validateCommand,
  },
  {
    name: 'plan',
    summary: 'show the steps and API calls a run would make, without making them',
    interrupt: 'exit',
    load: () => (require('./commands/plan') as typeof import('./commands/plan')).planCommand,
  },
  {
    name: 'status',
    summary: 'show a run, following it until it ends (reattach)',
    interrupt: 'detach',
    load: () => (require('./commands/status') as typeof import('./commands/status')).statusCommand,
  },
  {
    name: 'list',
    summary: 'list runs (running, failed, by runbook)',
    interrupt: 'exit',
    load: () => (require('./commands/list') as typeof import('./commands/list')).listCommand,
  },
  {
    name: 'history',
    summary: 'per-step timeline of a run with attempts and durations',
    interrupt: 'exit',
    load: () => (require('./commands/history') as typeof import('./commands/history')).historyCommand,
  },
  {
    name: 'cancel',
    summary: 'cancel a run; its completed steps are compensated',
    interrupt: 'detach',
    load: () => (require('./commands/cancel') as typeof import('./commands/cancel')).cancelCommand,
  },
  {
    name: 'approve',
    summary: "approve a run's pending approval step",
    interrupt: 'exit',
    load: () => (require('./commands/approve') as typeof import('./commands/approve')).approveCommand,
  },
  {
    name: 'reject',
    summary: "reject a run's pending approval step (the run fails and compensates)",
    interrupt: 'exit',
    load: () => (require('./commands/approve') as typeof import('./commands/approve')).rejectCommand,
  },
  {
    name: 'retry',
    summary: 'run the failed step of a held run again (optionally with changed inputs)',
    interrupt: 'exit',
    load: () => (require('./commands/hold-actions') as typeof import('./commands/hold-actions')).retryCommand,
  },
  {
    name: 'skip',
    summary: 'mark the failed step of a held run done with a given output, and go on',
    interrupt: 'exit',
    load: () => (require('./commands/hold-actions') as typeof import('./commands/hold-actions')).skipCommand,
  },
  {
    name: 'rollback',
    summary: 'roll a held run back now (compensate and fail)',
    interrupt: 'exit',
    load: () =>
      (require('./commands/hold-actions') as typeof import('./commands/hold-actions')).rollbackCommand,
  },
  {
    name: 'rerun',
    summary: "start a new run of an ended run's pinned definition and inputs",
    interrupt: 'detach',
    load: () => (require('./commands/rerun') as typeof import('./commands/rerun')).rerunCommand,
  },
  {
    name: 'schedule',
    summary: 'run runbooks on a schedule (create, list, describe, pause, unpause, trigger, delete)',
    interrupt: 'exit',
    load: () => (require('./commands/schedule') as typeof import('./commands/schedule')).scheduleCommand,
  },
  {
    name: 'upgrade',
    summary: 'open runs by the release they started on, and the patches they may still need',
    interrupt: 'exit',
    load: () => (require('./commands/upgrade') as typeof import('./commands/upgrade')).upgradeCommand,
  },
  {
    name: 'setup',
    summary: "register tideline's search attributes on the namespace (idempotent)",
    interrupt: 'exit',
    load: () => (require('./commands/setup') as typeof import('./commands/setup')).setupCommand,
  },
  {
    name: 'worker',
    summary: 'run a worker that executes runbooks',
    interrupt: 'command',
    load: () => (require('./commands/worker') as typeof import('./commands/worker')).workerCommand,
  },
  {
    name: 'simulator',
    summary: 'run the local cloud (a faithful Cloud API for rehearsals)',
    interrupt: 'command',
    load: () => (require('./commands/simulator') as typeof import('./commands/simulator')).simulatorCommand,
  },
  {
    name: 'codec-server',
    summary: "decrypt payloads for Temporal's Web UI and CLI (remote codec server)",
    interrupt: 'command',
    load: () =>
      (require('./commands/codec-server') as typeof import('./commands/codec-server')).codecServerCommand,
  },
  {
    name: 'dev',
    summary: 'Temporal dev server + local cloud + worker in one command',
    interrupt: 'command',
    load: () => (require('./commands/dev') as typeof import('./commands/dev')).devCommand,
  },
  {
    name: 'cluster',
    summary: 'a production-style Temporal on PostgreSQL on this machine (up, down, status)',
    interrupt: 'exit',
    load: () => (require('./commands/cluster') as typeof import('./commands/cluster')).clusterCommand,
  },
  {
    name: 'demo',
    summary: 'start the dev stack and run provision-production-service end to end',
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
    if (isCliError(error)) {
      printCliError(ctx, error);
      return error.exitCode;
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
