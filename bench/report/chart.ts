// A hand-written SVG of the main figures: six small horizontal bar charts, each with its goal as a
// dashed line. No chart library: the figures are few and the file stays diffable.
import type { BenchResults } from './results';

interface Bar {
  label: string;
  value: number;
  /** Text printed after the bar. */
  text: string;
  colour?: string;
}

interface Panel {
  title: string;
  bars: Bar[];
  goal?: { value: number; label: string };
  /** Axis maximum; default: a bit above the largest value or goal. */
  max?: number;
}

const WIDTH = 960;
const PANEL_WIDTH = 460;
const BAR_HEIGHT = 16;
const BAR_GAP = 6;
const LABEL_WIDTH = 150;
const PLOT_WIDTH = 200;
const TIDELINE = '#2f6fb0';
const REFERENCE = '#a0a7b0';
const MISS = '#c8553d';

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function panelHeight(panel: Panel): number {
  return 40 + panel.bars.length * (BAR_HEIGHT + BAR_GAP) + 24;
}

function renderPanel(panel: Panel, x: number, y: number): string {
  const largest = Math.max(...panel.bars.map((b) => b.value), panel.goal?.value ?? 0);
  const max = panel.max ?? largest * 1.15;
  const scale = (value: number) => (Math.min(value, max) / max) * PLOT_WIDTH;
  const parts = [`<text x="${x}" y="${y + 16}" class="title">${escape(panel.title)}</text>`];
  panel.bars.forEach((bar, index) => {
    const top = y + 30 + index * (BAR_HEIGHT + BAR_GAP);
    const width = Math.max(1, scale(bar.value));
    parts.push(
      `<text x="${x + LABEL_WIDTH - 6}" y="${top + 12}" class="label" text-anchor="end">${escape(bar.label)}</text>`,
      `<rect x="${x + LABEL_WIDTH}" y="${top}" width="${width.toFixed(1)}" height="${BAR_HEIGHT}" fill="${bar.colour ?? TIDELINE}"/>`,
      `<text x="${x + LABEL_WIDTH + width + 4}" y="${top + 12}" class="value">${escape(bar.text)}${bar.value > max ? ' ▸' : ''}</text>`,
    );
  });
  if (panel.goal) {
    const gx = x + LABEL_WIDTH + scale(panel.goal.value);
    const bottom = y + 30 + panel.bars.length * (BAR_HEIGHT + BAR_GAP);
    parts.push(
      `<line x1="${gx.toFixed(1)}" y1="${y + 26}" x2="${gx.toFixed(1)}" y2="${bottom}" class="goal"/>`,
      `<text x="${gx.toFixed(1)}" y="${bottom + 14}" class="goal-label" text-anchor="middle">${escape(panel.goal.label)}</text>`,
    );
  }
  return parts.join('\n');
}

function panels(results: BenchResults): Panel[] {
  const list: Panel[] = [];
  list.push({
    title: '1. Overhead: runbook ÷ 100 ms polling script',
    bars: results.overhead.map((o) => ({
      label: o.label,
      value: o.ratio,
      text: `${o.ratio.toFixed(2)}×`,
      colour: o.ratio <= 1.1 ? TIDELINE : MISS,
    })),
    goal: { value: 1.1, label: 'goal 1.10×' },
    max: 2,
  });
  list.push({
    title: '2. Throughput: completion ÷ lower bound',
    bars: results.throughput.map((t) => ({
      label: `${t.runs} · ${t.label.replace(', ', ' · ').replace(' lifecycle', '')}`,
      value: t.ratio,
      text: t.timedOut
        ? `> ${t.ratio.toFixed(2)}×, cut off: ${t.succeeded}/${t.runs} done`
        : `${t.ratio.toFixed(2)}× · ${t.runbooksPerSecond.toFixed(1)}/s · ${Math.round(t.workerUsage.peakRssMiB)} MiB`,
      // Stock-worker rows are references; a tuned row must also stay within 1 GiB.
      colour:
        t.worker === 'stock'
          ? REFERENCE
          : t.ratio <= 1.5 && t.workerUsage.peakRssMiB <= 1024
            ? TIDELINE
            : MISS,
    })),
    goal: { value: 1.5, label: 'goal 1.5×' },
    max: 10,
  });
  const lagBars: Bar[] = [];
  const callBars: Bar[] = [];
  for (const wait of results.waits) {
    const everySecond = wait.policies.find((p) => p.policy === 'fixed-1s')?.callsPerWait ?? 1;
    for (const policy of wait.policies) {
      const short =
        policy.policy === 'tideline' ? 'tideline' : policy.policy === 'fixed-1s' ? '1 s' : '15 s after 30 s';
      const ours = policy.policy === 'tideline';
      lagBars.push({
        label: `${wait.label} · ${short}`,
        value: policy.lagP95Ms / wait.lagGoalMs,
        text: `${(policy.lagP95Ms / 1000).toFixed(1)} s`,
        colour: !ours ? REFERENCE : policy.lagP95Ms <= wait.lagGoalMs ? TIDELINE : MISS,
      });
      callBars.push({
        label: `${wait.label} · ${short}`,
        value: (policy.callsPerWait / everySecond) * 100,
        text: `${policy.callsPerWait}`,
        colour: !ours ? REFERENCE : policy.callsPerWait < everySecond ? TIDELINE : MISS,
      });
    }
  }
  list.push({
    title: '3a. Detection lag p95 ÷ goal max(1 s, 10 %)',
    bars: lagBars,
    goal: { value: 1, label: 'goal' },
    max: 4,
  });
  list.push({
    title: '3b. API calls per wait, % of 1 s polling',
    bars: callBars,
    goal: { value: 100, label: '1 s polling' },
    max: 130,
  });
  list.push({
    title: '4. History events per provisioning run',
    bars: results.history.map((h) => ({
      label: `create ${h.label}`,
      value: h.events,
      text: `${h.events} events, ${h.polls} polls`,
    })),
  });
  list.push({
    title: '5. CLI start-up, p50 (ms)',
    bars: (results.cli?.commands ?? []).map((c) => ({
      label: c.command.replace(/ provision.*/, '').replace(' (Node alone)', ''),
      value: c.wallMs.p50,
      text: `${c.wallMs.p50} ms`,
      colour: c.command.startsWith('tideline') ? (c.wallMs.p50 <= 300 ? TIDELINE : MISS) : REFERENCE,
    })),
    goal: { value: 300, label: '300 ms' },
  });
  return list.filter((panel) => panel.bars.length > 0);
}

export function renderChart(results: BenchResults): string {
  const all = panels(results);
  const body: string[] = [];
  let y = 40;
  for (let i = 0; i < all.length; i += 2) {
    const row = all.slice(i, i + 2);
    row.forEach((panel, column) => body.push(renderPanel(panel, 10 + column * (PANEL_WIDTH + 20), y)));
    y += Math.max(...row.map(panelHeight)) + 10;
  }
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    '<style>.title{font-size:13px;font-weight:bold;fill:#222}.label,.value{font-size:11px;fill:#333}' +
      '.goal{stroke:#222;stroke-dasharray:4 3}.goal-label{font-size:10px;fill:#222}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="10" y="22" font-size="15" font-weight="bold">tideline benchmarks — ${escape(results.generatedAt.slice(0, 10))}, ` +
      `${results.machine.cpus} cores (red: goal missed, grey: references)</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
