// CPU time (user + system) this process spent, for bounds on synchronous work such as parsing or
// matching adversarial input: unlike the wall clock it does not grow when other processes load the
// machine, so a bound on it fails only when the work itself is too slow.

/** Runs `work` and gives its result and the CPU milliseconds it took. */
export function withCpuTime<T>(work: () => T): { value: T; cpuMs: number } {
  const before = process.cpuUsage();
  const value = work();
  const spent = process.cpuUsage(before);
  return { value, cpuMs: (spent.user + spent.system) / 1000 };
}
