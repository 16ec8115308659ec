// A child process that cannot outlive the CLI. It runs under a small POSIX-shell guard in its own
// process group (so a Ctrl-C in the terminal reaches only the CLI, which then stops things in
// order: worker first, server last):
//   - the guard forwards SIGTERM/SIGINT to the command and exits when it exits;
//   - the guard holds a pipe from the CLI; if the CLI dies, even by SIGKILL, the pipe closes and
//     the guard terminates the command (SIGKILL after 10 s);
//   - `stop()` sends SIGTERM and, past its deadline, SIGKILLs the whole group.
import { spawn, type ChildProcess } from 'node:child_process';

const GUARD = `
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

const OUTPUT_LIMIT = 64 * 1024;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SupervisedProcess {
  /** PID of the guard, which is also the process group id. */
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;
  isRunning(): boolean;
  /** The last 64 KiB of combined output (for error messages). */
  output(): string;
  /** SIGTERM, then SIGKILL of the group after `timeoutMs`; resolves once everything is gone. */
  stop(timeoutMs?: number): Promise<ProcessExit>;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export function spawnSupervised(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): SupervisedProcess {
  const child = spawn('/bin/sh', ['-c', GUARD, 'tideline-guard', command, ...args], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  const pid = child.pid;
  let output = '';
  let running = true;
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  child.stdin?.on('error', () => undefined);
  // Last resort when the CLI exits without stopping the stack (an uncaught error).
  const onExit = (): void => signalGroup(child, 'SIGKILL');
  process.once('exit', onExit);
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      process.removeListener('exit', onExit);
      child.stdin?.destroy();
      resolve({ code, signal });
    });
  });
  // Only the pipes would keep the event loop alive; the CLI decides when it is done.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as { unref?: () => void } | null)?.unref?.();

  return {
    pid,
    exited,
    isRunning: () => running,
    output: () => output,
    async stop(timeoutMs = 15_000) {
      if (!running) return exited;
      // To the guard only: it forwards one SIGTERM (a second one would rush a graceful stop).
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const result = await Promise.race([exited, timedOut]).finally(() => clearTimeout(timer));
      if (result !== 'timeout') return result;
      signalGroup(child, 'SIGKILL');
      return exited;
    },
  };
}
