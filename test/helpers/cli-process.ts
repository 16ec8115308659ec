// The real `tideline` binary (node bin/tideline.js → dist/cli/main.js) as a subprocess, for CLI
// tests: separate stdout and stderr, the exit code, and signals. Each process runs under the same
// guard as test/helpers/guarded-process.ts, so it cannot outlive the test process. Call
// buildDist() (test/helpers/worker-process.ts) first.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { GUARD_SCRIPT } from './guarded-process';
import { REPO_ROOT, TEST_ENCRYPTION_KEYS } from './worker-process';

export const TIDELINE_BIN = path.join(REPO_ROOT, 'bin', 'tideline.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<string>;
  signal(signal: 'SIGINT' | 'SIGTERM'): void;
  readonly done: Promise<CliResult>;
}

/**
 * The environment of a CLI run: this process's environment without TEMPORAL_* and TIDELINE_*
 * variables (so nothing from the developer's shell leaks in), the test encryption keys, no
 * colours, and what the test adds.
 */
export function cliEnvironment(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('TEMPORAL_') && !name.startsWith('TIDELINE_') && name !== 'FORCE_COLOR')
      base[name] = value;
  }
  return { ...base, TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, NO_COLOR: '1', ...env };
}

export function startCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): CliProcess {
  const child = spawn(
    '/bin/sh',
    ['-c', GUARD_SCRIPT, 'tideline-guard', process.execPath, TIDELINE_BIN, ...args],
    {
      cwd: options.cwd ?? REPO_ROOT,
      env: cliEnvironment(options.env),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  if (child.pid === undefined) throw new Error('could not start tideline');
  const pid = child.pid;
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const listener of listeners) listener();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin?.on('error', () => undefined);
  const timeoutMs = options.timeoutMs ?? 90_000;
  const timer = setTimeout(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, timeoutMs);
  const done = new Promise<CliResult>((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      child.stdin?.destroy();
      for (const listener of listeners) listener();
      resolve({ code, stdout, stderr });
    });
  });
  let exited = false;
  void done.then(() => (exited = true));
  return {
    pid,
    stdout: () => stdout,
    stderr: () => stderr,
    done,
    signal(signal) {
      if (!exited) process.kill(pid, signal);
    },
    waitForStdout(pattern, waitMs = 60_000) {
      return new Promise<string>((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(stdout)) {
            cleanup();
            resolve(stdout);
          } else if (exited) {
            cleanup();
            reject(
              new Error(
                `tideline ${args.join(' ')} exited before printing ${pattern}:\n${stdout}\n${stderr}`,
              ),
            );
          }
        };
        const limit = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `tideline ${args.join(' ')} did not print ${pattern} in ${waitMs} ms:\n${stdout}\n${stderr}`,
            ),
          );
        }, waitMs);
        const cleanup = (): void => {
          clearTimeout(limit);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs `tideline ARGS…` to the end. */
export function runTideline(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return startCli(args, options).done;
}

/** Parses the (single) JSON document a `--json` command printed on stdout. */
export function jsonOutput<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(
      `expected one JSON document on stdout, got:\n${result.stdout}\nstderr:\n${result.stderr}`,
    );
  }
}

/**
 * A command's stderr without the one panic the SDK's Rust core may print while a worker shuts down
 * with a local activity just dispatched (`local_activities.rs`: "receive half not dropped"): the
 * core's own race, harmless to the command (its exit code and output stand), printed straight to
 * the process's stderr by Rust. Anything else on stderr is kept.
 */
export function withoutCoreShutdownPanic(stderr: string): string {
  return stderr.replace(
    /\nthread '[^']*' \(\d+\) panicked at [^\n]*local_activities\.rs:\d+:\d+:\nreceive half not dropped: SendError \{ \.\. \}\n(?:stack backtrace:\n(?: +\S[^\n]*\n)*)?(?:note: [^\n]*\n)?/g,
    '',
  );
}
