// A child process that cannot outlive the process that started it (the CLI, or a test run). It
// runs under a small POSIX-shell guard in its own process group (so a Ctrl-C in the terminal
// reaches only the CLI, which then stops things in order: worker first, server last):
//   - the guard forwards SIGTERM/SIGINT to the command and waits for it to exit, so `stop()`
//     resolves only once the command is really gone (a restarted server finds its port free);
//   - the guard holds a pipe from its parent; if the parent dies, even by SIGKILL, the pipe closes
//     and the guard terminates the command (SIGKILL after 10 s);
//   - `stop()` sends SIGTERM and, past its deadline, SIGKILLs the whole group; `kill()` has the
//     guard SIGKILL the command, reap it and then SIGKILL itself (a crash, as far as the command
//     can tell), so that when it resolves the command is gone and its ports are free.
// The test helpers (test/helpers/guarded-process.ts) build on this module.
import { spawn, type ChildProcess } from 'node:child_process';

/** The guard: `sh -c GUARD_SCRIPT NAME COMMAND ARGS…`, with a pipe on its stdin. */
export const GUARD_SCRIPT = `
exec 3<&0
trap 'kill -KILL "$child" 2>/dev/null; wait "$child" 2>/dev/null; kill -TERM "$watcher" 2>/dev/null; kill -KILL $$' USR1
"$@" </dev/null 3<&- &
child=$!
(
  while read -r _ <&3; do :; done
  kill -TERM "$child" 2>/dev/null
  n=0
  while kill -0 "$child" 2>/dev/null && [ "$n" -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
  kill -KILL "$child" 2>/dev/null
) </dev/null >/dev/null 2>&1 &
watcher=$!
exec 3<&-
trap 'kill -TERM "$child" 2>/dev/null' TERM
trap 'kill -INT "$child" 2>/dev/null' INT
status=0
while kill -0 "$child" 2>/dev/null; do
  wait "$child"
  status=$?
done
kill -TERM "$watcher" 2>/dev/null
exit "$status"
`;

const DEFAULT_OUTPUT_LIMIT = 64 * 1024;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SupervisedProcessOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Names the process in error messages. Default: the command. */
  label?: string;
  /** How many characters of combined output `output()` keeps. Default 64 KiB. */
  outputLimit?: number;
  /**
   * Keeps the guard on record so that it is killed if this process exits without stopping it;
   * returns what takes it off the record once it has exited. Default: a process 'exit' hook that
   * SIGKILLs the group (the last resort when the CLI ends on an uncaught error).
   */
  track?: (child: ChildProcess) => () => void;
}

export interface SupervisedProcess {
  readonly label: string;
  /** PID of the guard, which is also the process group id. */
  readonly pid: number;
  /** Resolves when the guard (and so the command) has exited. */
  readonly exited: Promise<ProcessExit>;
  isRunning(): boolean;
  /** The last `outputLimit` characters of combined stdout and stderr (for error messages). */
  output(): string;
  /** Resolves with the output once it matches; rejects on exit or timeout. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends SIGTERM or SIGINT to the command (through the guard). */
  signal(signal: 'SIGTERM' | 'SIGINT'): void;
  /** Graceful stop: SIGTERM, wait up to `timeoutMs`, then SIGKILL the group; resolves once all is gone. */
  stop(timeoutMs?: number): Promise<ProcessExit>;
  /** Hard kill: SIGKILL the command; resolves once it is reaped (the guard then ends by SIGKILL). */
  kill(timeoutMs?: number): Promise<ProcessExit>;
}

/** Sends `signal` to the guard's whole process group (the command included). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function killOnExit(child: ChildProcess): () => void {
  const onExit = (): void => signalGroup(child, 'SIGKILL');
  process.once('exit', onExit);
  return () => process.removeListener('exit', onExit);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function spawnSupervised(
  command: string,
  args: readonly string[],
  options: SupervisedProcessOptions = {},
): SupervisedProcess {
  const label = options.label ?? command;
  const outputLimit = options.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
  const child = spawn('/bin/sh', ['-c', GUARD_SCRIPT, 'tideline-guard', command, ...args], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    detached: true, // own process group, so a group signal reaches the command too
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${label}`);
  const pid = child.pid;
  const untrack = (options.track ?? killOnExit)(child);

  let output = '';
  let running = true;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-outputLimit);
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  // The pipe is the guard's lifeline; this side never writes to it. Errors after exit are noise.
  child.stdin?.on('error', () => undefined);

  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      untrack();
      child.stdin?.destroy();
      for (const listener of listeners) listener();
      resolve({ code, signal });
    });
  });
  // Only the pipes would keep the event loop alive; the parent decides when it is done (a
  // forgotten process is killed on exit). An unreferenced child does not keep the loop alive
  // while its exit is awaited either: a process whose last work is awaiting a kill would end
  // there, silently, with code 0. So stop and kill hold the loop open until the exit arrives.
  child.unref();
  const awaitExit = async (): Promise<ProcessExit> => {
    const keepAlive = setInterval(() => undefined, 1_000);
    try {
      return await exited;
    } finally {
      clearInterval(keepAlive);
    }
  };
  /** Sends `signal` to the guard alone, which forwards it or acts on it; nothing once it is gone. */
  const signalGuard = (signal: NodeJS.Signals): void => {
    if (!running) return;
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  };
  /**
   * Signals the guard and awaits its exit. Past the deadline the whole group gets SIGKILL; so does
   * a group whose guard died of `signal` itself (it came before the guard set its trap, so the
   * command is still there). A group whose guard ended as planned is left alone: it is empty, and
   * its id may already belong to another process group.
   */
  const endGuard = async (signal: NodeJS.Signals, timeoutMs: number): Promise<ProcessExit> => {
    if (!running) return exited;
    signalGuard(signal);
    const result = await withTimeout(exited, timeoutMs);
    if (result === 'timeout' || result.signal === signal) signalGroup(child, 'SIGKILL');
    return result === 'timeout' ? awaitExit() : result;
  };
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as { unref?: () => void } | null)?.unref?.();

  return {
    label,
    pid,
    exited,
    isRunning: () => running,
    output: () => output,
    waitForOutput(pattern, timeoutMs = 30_000) {
      return new Promise<string>((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(output)) {
            cleanup();
            resolve(output);
          } else if (!running) {
            cleanup();
            reject(new Error(`${label} exited before printing ${pattern}; output:\n${output.slice(-4000)}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `${label} did not print ${pattern} within ${timeoutMs} ms; output:\n${output.slice(-4000)}`,
            ),
          );
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    signal: signalGuard,
    // To the guard only: it forwards one SIGTERM (a second one would rush a graceful stop).
    stop: (timeoutMs = 15_000) => endGuard('SIGTERM', timeoutMs),
    // The guard SIGKILLs the command, reaps it and SIGKILLs itself.
    kill: (timeoutMs = 10_000) => endGuard('SIGUSR1', timeoutMs),
  };
}
