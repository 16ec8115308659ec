// Child processes for tests that can never outlive the test run. Each command runs under a tiny
// POSIX-shell guard in its own process group:
//   - the guard forwards SIGTERM/SIGINT to the command and waits for it to exit, so `stop()`
//     resolves only once the command is really gone (a restarted server finds its port free);
//   - the guard holds a pipe from this process; if this process dies, even by SIGKILL, the pipe
//     closes and the guard terminates the command (then kills it after 10 s);
//   - `kill()` SIGKILLs the whole group: the command dies without any chance to clean up.
// Every live process is also killed when this process exits normally.
import { spawn, type ChildProcess } from 'node:child_process';

export const GUARD_SCRIPT = `
exec 3<&0
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

const OUTPUT_LIMIT = 256 * 1024;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface GuardedProcessOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Shown in error messages. */
  label?: string;
}

export interface GuardedProcess {
  readonly label: string;
  /** PID of the guard, which is also the process group id. */
  readonly pid: number;
  /** Resolves when the guard (and so the command) has exited. */
  readonly exited: Promise<ProcessExit>;
  isRunning(): boolean;
  /** The last 256 KiB of combined stdout and stderr. */
  output(): string;
  /** Resolves with the output once it matches; rejects on exit or timeout. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends SIGTERM or SIGINT to the command (through the guard). */
  signal(signal: 'SIGTERM' | 'SIGINT'): void;
  /** Graceful stop: SIGTERM, wait up to `timeoutMs`, then SIGKILL the group. */
  stop(timeoutMs?: number): Promise<ProcessExit>;
  /** Hard kill: SIGKILL the whole group at once (a crash, as far as the command can tell). */
  kill(): Promise<ProcessExit>;
}

type Registry = Set<ChildProcess>;
const REGISTRY_KEY = Symbol.for('tideline.test.guardedProcesses');

/** One registry and one exit hook per OS process, even when Jest loads this module many times. */
function registry(): Registry {
  const holder = process as unknown as Record<symbol, Registry | undefined>;
  let live = holder[REGISTRY_KEY];
  if (live === undefined) {
    live = new Set();
    holder[REGISTRY_KEY] = live;
    const killAll = live;
    process.once('exit', () => {
      for (const child of killAll) killGroup(child, 'SIGKILL');
    });
  }
  return live;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function spawnGuarded(
  command: string,
  args: readonly string[],
  options: GuardedProcessOptions = {},
): GuardedProcess {
  const label = options.label ?? command;
  const child = spawn('/bin/sh', ['-c', GUARD_SCRIPT, 'tideline-guard', command, ...args], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    detached: true, // own process group, so kill() reaches the command too
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${label}`);
  const pid = child.pid;
  const live = registry();
  live.add(child);

  let output = '';
  let running = true;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  // The pipe is the guard's lifeline; this side never writes to it. Errors after exit are noise.
  child.stdin?.on('error', () => undefined);

  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      live.delete(child);
      child.stdin?.destroy();
      for (const listener of listeners) listener();
      resolve({ code, signal });
    });
  });
  // The guard must not keep Jest alive on its own (a forgotten process is killed by the exit hook);
  // `exited` still settles while a test awaits it.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as { unref?: () => void } | null)?.unref?.();

  const handle: GuardedProcess = {
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
    signal(signal) {
      if (running) process.kill(pid, signal);
    },
    async stop(timeoutMs = 15_000) {
      if (!running) return exited;
      process.kill(pid, 'SIGTERM');
      const result = await withTimeout(exited, timeoutMs);
      if (result !== 'timeout') return result;
      killGroup(child, 'SIGKILL');
      return exited;
    },
    async kill() {
      if (running) killGroup(child, 'SIGKILL');
      return exited;
    },
  };
  return handle;
}

/** Stops every guarded process this OS process started (for afterAll hooks). */
export async function stopAllGuarded(): Promise<void> {
  const live = [...registry()];
  for (const child of live) killGroup(child, 'SIGTERM');
  await Promise.all(
    live.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => {
            killGroup(child, 'SIGKILL');
          }, 15_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
    ),
  );
}
