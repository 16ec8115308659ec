// Helpers of the `tideline dev` / `schedule` / `demo` CLI tests: start the real binary's dev stack
// and read its first JSON line, and look at the processes it started.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { StackInfo } from '../../stack/stack-info';
import { startCli, type CliProcess } from '../helpers/cli-process';

export interface DevCli {
  cli: CliProcess;
  info: StackInfo;
}

/** `tideline dev --port 0 --json …`, once its first line (the stack's JSON) is out. */
export async function startDevCli(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<DevCli> {
  const cli = startCli(['dev', '--port', '0', '--json', ...args], { env, timeoutMs: 10 * 60_000 });
  const stdout = await cli.waitForStdout(/\n/, 120_000);
  const first = stdout.split('\n')[0] ?? '';
  return { cli, info: JSON.parse(first) as StackInfo };
}

/** Every process below `pid` (children, grandchildren …), from `ps`. */
export function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  const children = new Map<number, number[]>();
  for (const line of table.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || Number.isNaN(child)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Running (a zombie, exited but not yet reaped, counts as gone). */
export function isAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (comm) S …": the state follows the last parenthesis.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/**
 * The processes still running after up to `timeoutMs`: a stopped process may take a while to go
 * on a loaded machine, but not as long as this.
 */
export async function survivors(pids: number[], timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > deadline) return alive.map((pid) => `${pid} ${commandLine(pid)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The command line of a process (empty once it is gone). */
export function commandLine(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}
