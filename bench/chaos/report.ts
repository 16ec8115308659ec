// The chaos results as Markdown: one row per disruption round, then recovery by what each run was
// doing when the disruption hit, then anything that did not go as planned; then the cancel round
// (bench/chaos/cancel-report.ts).
import type { RoundResult } from './campaign';
import type { CancelRoundResult } from './cancel-round';
import { renderCancelMarkdown } from './cancel-report';

const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function roundsTable(rounds: RoundResult[]): string {
  const header = [
    'round',
    'runs (doomed)',
    'ended as planned',
    'duplicates',
    'orphans',
    'disruptions (outage)',
    'recovery p50 / p95',
    'faults fired',
    'took',
  ];
  const rows = rounds.map((r) => [
    r.disruption,
    `${r.runs} (${r.doomed})`,
    `**${r.completedAsPlanned}/${r.runs}**`,
    `**${r.duplicates}**`,
    `**${r.orphans}**`,
    `${r.disruptions} (${r.outageMs.map(s).join(', ')})`,
    `${s(r.recoveryMs.p50)} / ${s(r.recoveryMs.p95)} (n=${r.recoveryMs.count})`,
    Object.values(r.faultsFired).reduce((a, b) => a + b, 0),
    s(r.roundMs),
  ]);
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function recoveryTable(rounds: RoundResult[]): string {
  const header = ['round', 'in flight at the disruption', 'runs', 'recovery p50', 'max'];
  const rows = rounds.flatMap((r) =>
    Object.entries(r.recoveryByActivity)
      .sort(([, a], [, b]) => b.count - a.count)
      .map(([doing, summary]) => [r.disruption, doing, summary.count, s(summary.p50), s(summary.max)]),
  );
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function renderRoundsMarkdown(rounds: RoundResult[]): string {
  const problems = rounds
    .filter((r) => r.unexpected.length || r.incomplete.length)
    .map(
      (r) =>
        `- ${r.disruption}: unexpected ${r.unexpected.join('; ')}; incomplete ${r.incomplete.join(', ')}`,
    );
  return [roundsTable(rounds), recoveryTable(rounds), ...(problems.length ? [problems.join('\n')] : [])].join(
    '\n\n',
  );
}

export function renderChaosMarkdown(rounds: RoundResult[], cancelRound?: CancelRoundResult): string {
  const parts = rounds.length ? [renderRoundsMarkdown(rounds)] : [];
  if (cancelRound) parts.push(renderCancelMarkdown(cancelRound));
  return parts.join('\n\n');
}
