// Figure 1 — orchestration overhead: one provision-production-service run against the local cloud
// with fixed lifecycle durations, versus a plain script making the same API calls and polling every
// 100 ms (the lower bound). Each repetition runs the two side by side, on a warm worker.
import type { RunReport } from '../contract/run-messages';
import { provisionByScript } from './lib/provision-script';
import type { RunbookDefinition } from '../dsl/definition';
import { provisioningDefinition, startBenchStack, type Durations } from './lib/stack';
import type { DevServer } from './lib/dev-server';
import { median, round } from './lib/stats';

export interface OverheadCase {
  label: string;
  durations: Durations;
  /**
   * The runbook's waits poll with this first interval (as `interval:` on each wait step would set
   * it) instead of the default 1 s: what an author who wants faster detection pays in API calls.
   */
  waitIntervalMs?: number;
}

/** provision-production-service with every wait's first poll interval set to `intervalMs`. */
function withWaitInterval(intervalMs: number): RunbookDefinition {
  const definition = provisioningDefinition();
  return {
    ...definition,
    steps: definition.steps.map((step) => (step.kind === 'wait' ? { ...step, intervalMs } : step)),
  };
}

export interface OverheadResult {
  label: string;
  durations: Durations;
  waitIntervalMs?: number;
  repetitions: number;
  /** Median wall time of the 100 ms polling script, ms. */
  scriptMs: number;
  /** Median wall time of the runbook, from start request to result, ms. */
  runbookMs: number;
  ratio: number;
  scriptSamplesMs: number[];
  runbookSamplesMs: number[];
  /** API calls per run (the runbook's counted at the local cloud). */
  scriptCalls: number;
  runbookCalls: number;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

export async function measureOverhead(
  server: DevServer,
  overheadCase: OverheadCase,
  repetitions: number,
): Promise<OverheadResult> {
  const stack = await startBenchStack({ server, durations: overheadCase.durations });
  const definition =
    overheadCase.waitIntervalMs === undefined ? undefined : withWaitInterval(overheadCase.waitIntervalMs);
  try {
    // A first run warms the worker (workflow context, connections) and is not counted.
    await (await stack.startProvisioning('warm-up', undefined, definition)).result();
    const scriptSamples: number[] = [];
    const runbookSamples: number[] = [];
    let scriptCalls = 0;
    let runbookCalls = 0;
    for (let rep = 0; rep < repetitions; rep++) {
      const before = stack.cloud.stats().total;
      const [script, runbook] = await Promise.all([
        timed(() =>
          provisionByScript(stack.api, {
            projectId: stack.access.projectId,
            name: `script-${rep}`,
            vpcId: stack.vpcId,
          }),
        ),
        timed(
          async () =>
            (await (
              await stack.startProvisioning(`runbook-${rep}`, undefined, definition)
            ).result()) as RunReport,
        ),
      ]);
      if (script.value <= 0 || runbook.value.status !== 'succeeded')
        throw new Error('a provisioning did not succeed');
      scriptSamples.push(script.ms);
      runbookSamples.push(runbook.ms);
      scriptCalls = script.value;
      runbookCalls = stack.cloud.stats().total - before - script.value;
    }
    const scriptMs = median(scriptSamples);
    const runbookMs = median(runbookSamples);
    return {
      label: overheadCase.label,
      durations: overheadCase.durations,
      ...(overheadCase.waitIntervalMs === undefined ? {} : { waitIntervalMs: overheadCase.waitIntervalMs }),
      repetitions,
      scriptMs: round(scriptMs, 0),
      runbookMs: round(runbookMs, 0),
      ratio: round(runbookMs / scriptMs, 3),
      scriptSamplesMs: scriptSamples.map((ms) => round(ms, 0)),
      runbookSamplesMs: runbookSamples.map((ms) => round(ms, 0)),
      scriptCalls,
      runbookCalls,
    };
  } finally {
    await stack.close();
  }
}
