// The results as Markdown tables: printed by `npm run bench`, written to bench/results/bench.md
// and pasted into docs/performance.md.
import type { BenchResults } from './results';
import type { BaselineConcurrentResult, SampledConcurrentCost } from '../baseline-compare';

function table(header: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

const s = (ms: number, digits = 1) => `${(ms / 1000).toFixed(digits)} s`;
const mark = (met: boolean) => (met ? '✅' : '❌');

export function overheadTable(results: BenchResults): string {
  return table(
    [
      'lifecycle (create / attach / pooler)',
      '100 ms script',
      'runbook',
      'ratio',
      'API calls script / runbook',
    ],
    results.overhead.map((o) => [
      `${o.label}: ${s((o.durations.queued ?? 0) + (o.durations.configuring ?? 0))} / ${s(o.durations.vpcAttach ?? 0)} / ${s(o.durations.pooler ?? 0)}`,
      s(o.scriptMs, 2),
      s(o.runbookMs, 2),
      `**${o.ratio.toFixed(2)}×**`,
      `${o.scriptCalls} / ${o.runbookCalls}`,
    ]),
  );
}

export function throughputTable(results: BenchResults): string {
  return table(
    [
      'runs',
      'worker, lifecycle',
      'completion',
      'lower bound',
      'ratio',
      'runbooks/s',
      'e2e p50 / p95',
      'worker RSS peak',
      'CPU per run (worker / server / cloud+client)',
    ],
    results.throughput.map((t) => [
      t.runs,
      t.label,
      t.timedOut
        ? `> ${s(t.completionMs)}: cut off, ${t.succeeded} done`
        : s(t.completionMs) +
          (t.spread ? ` (${s(t.spread.completionMs[0])}–${s(t.spread.completionMs[1])})` : ''),
      s(t.lowerBoundMs),
      `**${t.timedOut ? '> ' : ''}${t.ratio.toFixed(2)}×**` +
        (t.spread ? ` (${t.spread.ratio[0].toFixed(2)}–${t.spread.ratio[1].toFixed(2)}×)` : ''),
      t.runbooksPerSecond.toFixed(2),
      `${s(t.endToEndMs.p50)} / ${s(t.endToEndMs.p95)}`,
      `${Math.round(t.workerUsage.peakRssMiB)} MiB`,
      `${t.cpuMsPerRun.worker} / ${t.cpuMsPerRun.server} / ${t.cpuMsPerRun.bench} ms` +
        (t.spread
          ? ` (worker ${t.spread.workerCpuMsPerRun[0]}–${t.spread.workerCpuMsPerRun[1]}, server ${t.spread.serverCpuMsPerRun[0]}–${t.spread.serverCpuMsPerRun[1]}; ${t.spread.samples} samples)`
          : ''),
    ]),
  );
}

/** Where the worker's CPU per run goes, by thread (older results have no breakdown). */
export function workerThreadTable(results: BenchResults): string {
  const runs = results.throughput.filter((t) => t.workerUsage.cpuByThread !== undefined);
  const roles = [...new Set(runs.flatMap((t) => Object.keys(t.workerUsage.cpuByThread ?? {})))];
  if (runs.length === 0) return '';
  return table(
    ['runs', 'worker, lifecycle', ...roles],
    runs.map((t) => [
      t.runs,
      t.label,
      ...roles.map((role) => `${Math.round(((t.workerUsage.cpuByThread?.[role] ?? 0) * 1000) / t.runs)} ms`),
    ]),
  );
}

export function waitTable(results: BenchResults): string {
  const rows: Array<Array<string | number>> = [];
  for (const wait of results.waits) {
    for (const policy of wait.policies) {
      rows.push([
        wait.label,
        policy.policy,
        `${policy.callsPerWait} (model ${policy.model.callsPerWait})`,
        `${s(policy.lagP50Ms, 2)} / ${s(policy.lagP95Ms, 2)}`,
        `${s(policy.model.lagP95Ms, 2)}`,
        policy.policy === 'tideline' ? `≤ ${s(wait.lagGoalMs)}` : '',
      ]);
    }
  }
  return table(
    ['wait', 'policy', 'API calls per wait', 'lag p50 / p95 (measured)', 'lag p95 (model)', 'goal'],
    rows,
  );
}

export function historyTable(results: BenchResults): string {
  return table(
    ['create takes', 'history events', 'service.get polls'],
    results.history.map((h) => [h.label, `**${h.events}**`, h.polls]),
  );
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

export function fleetTable(results: BenchResults): string {
  return table(
    [
      'services',
      'paused',
      'wall time',
      'run history',
      'batch children',
      'largest child',
      'all histories',
      'per service',
    ],
    (results.fleet ?? []).map((f) => [
      f.services,
      f.paused,
      s(f.wallMs),
      `${f.run.events} events, ${mb(f.run.bytes)}`,
      f.children,
      f.children ? `${f.largestChild.events} events, ${mb(f.largestChild.bytes)}` : '–',
      `${f.total.events} events, ${mb(f.total.bytes)}`,
      `**${f.bytesPerService} B**, ${f.eventsPerService} events`,
    ]),
  );
}

/** A concurrent case's min–max of a measure, each side (results saved before samples had none). */
function spreads(
  c: BaselineConcurrentResult,
  measure: keyof NonNullable<SampledConcurrentCost['spread']>,
  unit: 's' | 'ms',
): string {
  const show = (side: SampledConcurrentCost) => {
    const range = side.spread?.[measure];
    if (range === undefined) return undefined;
    return unit === 's' ? `${s(range.min, 1)}–${s(range.max, 1)}` : `${range.min}–${range.max} ms`;
  };
  const [t, b] = [show(c.tideline), show(c.baseline)];
  return t === undefined || b === undefined ? '' : ` (${t} / ${b})`;
}

/** Figure 7: each measure as tideline / hand-written workflow = ratio. */
export function baselineTable(results: BenchResults): string {
  const baseline = results.baseline;
  if (!baseline) return '';
  const pair = (t: number, b: number, ratio: number, unit = '') =>
    `${t}${unit} / ${b}${unit} = **${ratio.toFixed(2)}×**`;
  const wall = (t: number, b: number, ratio: number) => `${s(t, 2)} / ${s(b, 2)} = **${ratio.toFixed(2)}×**`;
  const rows: Array<Array<string | number>> = [
    ...baseline.single.map((o) => [
      `one provisioning, ${o.label} (median of ${o.repetitions})`,
      wall(o.tideline.wallMs, o.baseline.wallMs, o.ratio.wall),
      pair(o.tideline.events, o.baseline.events, o.ratio.events),
      pair(o.tideline.workerCpuMs, o.baseline.workerCpuMs, o.ratio.cpu, ' ms'),
      '–',
    ]),
    ...baseline.concurrent.map((c) => [
      `${c.runs} at once, ${c.label}${c.tideline.samples === undefined ? '' : ` (median of ${c.tideline.samples})`}`,
      `${wall(c.tideline.completionMs, c.baseline.completionMs, c.ratio.wall)}${spreads(c, 'completionMs', 's')}`,
      pair(c.tideline.eventsPerRun, c.baseline.eventsPerRun, c.ratio.events),
      `${pair(c.tideline.workerCpuMsPerRun, c.baseline.workerCpuMsPerRun, c.ratio.cpu, ' ms')}${spreads(c, 'workerCpuMsPerRun', 'ms')}`,
      `${c.tideline.serverCpuMsPerRun} ms / ${c.baseline.serverCpuMsPerRun} ms${spreads(c, 'serverCpuMsPerRun', 'ms')}${
        c.tideline.benchCpuMsPerRun === undefined
          ? ''
          : `; local cloud and client ${c.tideline.benchCpuMsPerRun} ms / ${c.baseline.benchCpuMsPerRun} ms`
      }`,
    ]),
    ...baseline.fleet.map((f) => [
      `fleet of ${f.services}, ${f.concurrency} at a time (whole run)`,
      wall(f.tideline.wallMs, f.baseline.wallMs, f.ratio.wall),
      `${pair(f.tideline.events, f.baseline.events, f.ratio.events)} (tideline's ${f.tideline.lockWorkflows} lock workflows: ${f.tideline.lockEvents})`,
      pair(f.tideline.workerCpuMs, f.baseline.workerCpuMs, f.ratio.cpu, ' ms'),
      `${f.tideline.serverCpuMs} ms / ${f.baseline.serverCpuMs} ms`,
    ]),
  ];
  return table(
    [
      'case',
      'wall time tideline / hand-written',
      'history events (per run)',
      'worker CPU (per run)',
      'dev server CPU (per run)',
    ],
    rows,
  );
}

export function cliTable(results: BenchResults): string {
  return table(
    ['command', 'p50', 'p95', 'min'],
    (results.cli?.commands ?? []).map((c) => [
      c.command,
      `${c.wallMs.p50} ms`,
      `${c.wallMs.p95} ms`,
      `${c.wallMs.min} ms`,
    ]),
  );
}

export function goalsTable(results: BenchResults): string {
  return table(
    ['figure', 'goal', 'measured', ''],
    results.goals.map((g) => [g.figure, g.goal, g.measured, mark(g.met)]),
  );
}

export function renderMarkdown(results: BenchResults): string {
  const m = results.machine;
  const sections = [
    `Measured ${results.generatedAt} on ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node}; ` +
      `load average ${m.loadAverageStart.join(' ')} at the start, ${m.loadAverageEnd.join(' ')} at the end.`,
    '**Goals**\n\n' + goalsTable(results),
  ];
  if (results.overhead.length)
    sections.push('**1. Orchestration overhead** (median of the repetitions)\n\n' + overheadTable(results));
  if (results.throughput.length) sections.push('**2. Throughput**\n\n' + throughputTable(results));
  const threads = workerThreadTable(results);
  if (threads) sections.push('**2b. Worker CPU per run, by thread**\n\n' + threads);
  if (results.waits.length) sections.push('**3. API economy and detection lag**\n\n' + waitTable(results));
  if (results.history.length)
    sections.push('**4. History cost** (one provisioning run)\n\n' + historyTable(results));
  if (results.fleet?.length)
    sections.push(
      '**6. Fleet** (stop-dev-services, 20 at a time; histories of the run and of its batch children)\n\n' +
        fleetTable(results),
    );
  const baseline = baselineTable(results);
  if (baseline)
    sections.push(
      '**7. Against a hand-written Temporal workflow** (tideline / hand-written, goal ≤ 1.10×)\n\n' +
        baseline,
    );
  if (results.cli)
    sections.push(`**5. CLI start-up** (${results.cli.repetitions} runs each)\n\n` + cliTable(results));
  return sections.join('\n\n') + '\n';
}
