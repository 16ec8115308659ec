// Figure 7 as `npm run bench` runs it (bench/main.ts): which cases of tideline against the
// hand-written workflow run, at what sizes, and how a partial run merges into saved results.
import { measureBaselineConcurrent, measureBaselineSingle } from './baseline-compare';
import { measureBaselineFleet } from './baseline-fleet';
import type { DevServer } from './lib/dev-server';
import type { BaselineResults } from './report/results';
import { DEMO_DURATIONS, STANDARD_DURATIONS } from './settings';

export interface BaselineOptions {
  parts: ReadonlySet<keyof BaselineResults>;
  /** Concurrent provisionings per case. */
  sizes: number[];
  /** Services in the fleet case; 0 leaves it out. */
  fleet: number;
  repetitions: number;
}

type Log = (line: string) => void;

/** The cases that share the benchmark's dev server: one provisioning, and the fleet. */
export async function measureBaselineOnServer(
  server: DevServer,
  options: BaselineOptions,
  into: BaselineResults,
  log: Log,
): Promise<void> {
  if (options.parts.has('single')) {
    const cases = [
      { label: 'standard', durations: STANDARD_DURATIONS },
      { label: 'demo pace', durations: DEMO_DURATIONS },
    ];
    for (const { label, durations } of cases) {
      log(
        `7. against a hand-written workflow: one provisioning, ${label}, ${options.repetitions} repetition(s)`,
      );
      into.single.push(await measureBaselineSingle(server, label, durations, options.repetitions));
    }
  }
  if (options.parts.has('fleet') && options.fleet > 0) {
    log(`7. against a hand-written workflow: fleet of ${options.fleet}`);
    into.fleet.push(await measureBaselineFleet(server, options.fleet));
  }
}

/** N at once, each side on its own fresh dev server (started and stopped here). */
export async function measureBaselineSizes(options: BaselineOptions, into: BaselineResults, log: Log) {
  for (const runs of options.parts.has('concurrent') ? options.sizes : []) {
    log(
      `7. against a hand-written workflow: ${runs} provisionings at once, 30 s lifecycle, ${options.repetitions} sample(s) per side after a warm-up`,
    );
    into.concurrent.push(
      await measureBaselineConcurrent(runs, STANDARD_DURATIONS, '30 s lifecycle', options.repetitions),
    );
  }
}

/** Saved figure 7 with the cases this run measured replaced (the others keep their saved rows). */
export function mergeBaseline(fresh: BaselineResults, saved: BaselineResults | undefined): BaselineResults {
  const kept = saved ?? { single: [], concurrent: [], fleet: [] };
  return {
    single: fresh.single.length > 0 ? fresh.single : kept.single,
    concurrent: fresh.concurrent.length > 0 ? fresh.concurrent : kept.concurrent,
    fleet: fresh.fleet.length > 0 ? fresh.fleet : kept.fleet,
  };
}
