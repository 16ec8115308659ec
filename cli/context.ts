// What every command receives: where to write, the environment, and the global options.
// Commands are plain async functions `(args, ctx) => exit code`; they never call process.exit.
import type { Writable } from 'node:stream';

export interface GlobalOptions {
  /** Temporal frontend, e.g. `127.0.0.1:7233` (flag > TEMPORAL_ADDRESS > config file). */
  address?: string;
  namespace?: string;
  /** Default `tideline` (flag > TIDELINE_TASK_QUEUE > config file). */
  taskQueue?: string;
  /** A tideline config file (the worker's format, plus client settings). */
  config?: string;
  json: boolean;
}

export interface CliContext {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  /** The person at the keyboard, when there is one (a TTY): `approve` asks to confirm the plan. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  globals: GlobalOptions;
  /** Resolves when the user presses Ctrl-C (SIGINT); commands that follow a run detach then. */
  interrupted: Promise<void>;
}

/** A command: parses its own arguments (after the command name) and returns an exit code. */
export type Command = (argv: string[], ctx: CliContext) => Promise<number>;
