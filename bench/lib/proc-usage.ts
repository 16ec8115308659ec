// Resource use of a process tree, read from /proc (Linux): resident memory and CPU time. The
// worker runs as its own process (under a guard shell), so its figures are not mixed with the
// benchmark's own.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number.parseInt(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }), 10) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

interface ProcSample {
  /** utime + stime, seconds. */
  cpuSeconds: number;
  rssBytes: number;
}

function readProc(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    return { cpuSeconds: (utime + stime) / clockTicks(), rssBytes: rssKb * 1024 };
  } catch {
    return undefined; // the process is gone
  }
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) children.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // gone, or no children file
  }
  return children;
}

/** The pid and all its descendants. */
export function processTree(root: number): number[] {
  const all: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    all.push(pid);
    queue.push(...childrenOf(pid));
  }
  return all;
}

export function treeUsage(root: number): ProcSample {
  let cpuSeconds = 0;
  let rssBytes = 0;
  for (const pid of processTree(root)) {
    const sample = readProc(pid);
    if (sample) {
      cpuSeconds += sample.cpuSeconds;
      rssBytes += sample.rssBytes;
    }
  }
  return { cpuSeconds, rssBytes };
}

/** A thread's role, from its name and whether it is the process's main thread. */
function threadRole(pid: number, tid: number, name: string): string {
  if (tid === pid) return name === 'node' ? 'JS main thread' : 'other processes';
  if (name === 'node') return 'JS worker threads (workflows)';
  if (name.startsWith('tokio')) return 'SDK core (tokio)';
  if (name.startsWith('V8') || name.startsWith('libuv')) return 'V8 GC and libuv pool';
  return 'other threads';
}

/** CPU seconds of every live thread of the tree, by `pid:tid`, with its role. */
function threadSamples(root: number): Map<string, { role: string; cpuSeconds: number }> {
  const samples = new Map<string, { role: string; cpuSeconds: number }>();
  for (const pid of processTree(root)) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / clockTicks();
        samples.set(`${pid}:${task}`, { role: threadRole(pid, Number(task), name), cpuSeconds });
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return samples;
}

export interface UsageReport {
  /** CPU seconds used between start() and stop(). */
  cpuSeconds: number;
  /**
   * The same CPU seconds by thread role (JS main thread, workflow threads, SDK core, V8/libuv);
   * "threads that ended" is what short-lived threads used (e.g. one per vm call with a timeout).
   */
  cpuByThread?: Record<string, number>;
  /** CPU seconds per wall second (1.0 = one core busy). */
  cpuCores: number;
  peakRssMiB: number;
  endRssMiB: number;
}

/** Samples a process tree every `intervalMs` until stopped; peak RSS and CPU time used. */
export function startUsageSampler(rootPid: number, intervalMs = 500) {
  const startedAt = Date.now();
  const first = treeUsage(rootPid);
  let peakRss = first.rssBytes;
  let last = first;
  const firstThreads = threadSamples(rootPid);
  const lastThreads = new Map(firstThreads);
  const sampleThreads = () => {
    for (const [key, sample] of threadSamples(rootPid)) lastThreads.set(key, sample);
  };
  const timer = setInterval(() => {
    last = treeUsage(rootPid);
    peakRss = Math.max(peakRss, last.rssBytes);
    sampleThreads();
  }, intervalMs);
  timer.unref();
  return {
    stop(): UsageReport {
      clearInterval(timer);
      const end = treeUsage(rootPid);
      if (end.rssBytes > 0) last = end;
      sampleThreads();
      peakRss = Math.max(peakRss, last.rssBytes);
      const cpuSeconds = last.cpuSeconds - first.cpuSeconds;
      const wallSeconds = (Date.now() - startedAt) / 1000;
      const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
      const byRole: Record<string, number> = {};
      let accounted = 0;
      for (const [key, sample] of lastThreads) {
        const used = sample.cpuSeconds - (firstThreads.get(key)?.cpuSeconds ?? 0);
        byRole[sample.role] = (byRole[sample.role] ?? 0) + used;
        accounted += used;
      }
      byRole['threads that ended'] = Math.max(0, cpuSeconds - accounted);
      const cpuByThread = Object.fromEntries(
        Object.entries(byRole).map(([role, seconds]) => [role, Math.round(seconds * 100) / 100]),
      );
      return {
        cpuSeconds: Math.round(cpuSeconds * 100) / 100,
        cpuByThread,
        cpuCores: Math.round((cpuSeconds / Math.max(wallSeconds, 0.001)) * 100) / 100,
        peakRssMiB: mib(peakRss),
        endRssMiB: mib(last.rssBytes),
      };
    },
  };
}

export function loadAverage(): number[] {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  } catch {
    return [];
  }
}
