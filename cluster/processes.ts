// Processes the native cluster leaves running after the CLI exits: started detached (own session,
// output to a log file), found again by pid, and stopped only when the pid still runs what the
// cluster started (a reused pid is never signalled).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The process's command line (arguments joined by spaces), or undefined when it is gone. */
export function processCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** True when `pid` runs and its command line contains `marker` (a path only this cluster uses). */
export function isOurProcess(pid: number | undefined, marker: string): pid is number {
  if (pid === undefined) return false;
  const cmdline = processCommandLine(pid);
  if (cmdline === undefined || !cmdline.includes(marker)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat); // a zombie has exited
  } catch {
    return false;
  }
}

export async function waitFor(check: () => boolean, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** SIGTERM (or the given signal), then SIGKILL past `graceMs`; resolves once the process is gone. */
export async function terminate(
  pid: number,
  marker: string,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 20_000,
): Promise<void> {
  const signalIfOurs = (sig: NodeJS.Signals): void => {
    if (!isOurProcess(pid, marker)) return;
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  signalIfOurs(signal);
  if (await waitFor(() => !isOurProcess(pid, marker), graceMs)) return;
  signalIfOurs('SIGKILL');
  await waitFor(() => !isOurProcess(pid, marker), 10_000);
}

/** Starts a daemon: its own session, no terminal, stdout and stderr appended to `logFile`. */
export function spawnDaemon(
  command: string,
  args: readonly string[],
  options: { logFile: string; env: NodeJS.ProcessEnv; cwd?: string },
): number {
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const fd = openSync(options.logFile, 'a', 0o600);
  try {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** The last `chars` characters of a log file (for error messages). */
export function logTail(file: string, chars = 3_000): string {
  try {
    return readFileSync(file, 'utf8').slice(-chars);
  } catch {
    return '';
  }
}

export interface CommandResult {
  status: number;
  output: string;
}

/** Runs a command to its end; combined output kept (the last 16 KiB). */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-16_384);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: -1, output: `${output}${String(error)}` });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ status: code ?? -1, output });
    });
  });
}
