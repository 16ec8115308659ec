// The cancel round as Markdown: totals, then by runbook and kind of moment, then the in-flight
// cancels by the call that was held open, then every case that left something behind or ended
// unexpectedly, each with the command that makes that case again.
import type { CancelCaseResult, CancelRoundResult } from './cancel-round';

const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
const table = (header: string[], rows: Array<Array<string | number>>) =>
  [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Tally {
  cases: number;
  cancels: number;
  cancelled: number;
  succeeded: number;
  failed: number;
  orphans: number;
  notRestored: number;
}

function tally(cases: CancelCaseResult[]): Tally {
  return {
    cases: cases.length,
    cancels: cases.filter((c) => c.cancelSent).length,
    cancelled: cases.filter((c) => c.ended === 'cancelled').length,
    succeeded: cases.filter((c) => c.ended === 'succeeded').length,
    failed: cases.filter((c) => c.ended === 'failed').length,
    orphans: cases.reduce((n, c) => n + c.leftovers.length, 0),
    notRestored: cases.reduce((n, c) => n + c.notRestored.length, 0),
  };
}

const TALLY_HEADER = [
  'runs',
  'cancels sent',
  'ended cancelled',
  'ended succeeded¹',
  'ended failed',
  'orphans',
  'not restored',
];
const tallyCells = (t: Tally) => [
  t.cases,
  t.cancels,
  t.cancelled,
  t.succeeded,
  t.failed,
  `**${t.orphans}**`,
  `**${t.notRestored}**`,
];

function groups<K extends string>(
  cases: CancelCaseResult[],
  key: (c: CancelCaseResult) => K,
): Array<[K, CancelCaseResult[]]> {
  const map = new Map<K, CancelCaseResult[]>();
  for (const c of cases) map.set(key(c), [...(map.get(key(c)) ?? []), c]);
  return [...map.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export function reproduceCommand(result: CancelRoundResult, c: CancelCaseResult): string {
  const runMs = `${result.runMs['provision-production-service']},${result.runMs['fork-and-promote']}`;
  return `npm run bench:chaos -- --cancel-round --cancel-seed=${result.seed} --cancel-case=${c.index} --cancel-run-ms=${runMs}`;
}

export function renderCancelMarkdown(result: CancelRoundResult): string {
  const all = tally(result.cases);
  const overview = table(
    ['round', ...TALLY_HEADER, 'took'],
    [['cancel at random moments', ...tallyCells(all), s(result.roundMs)]],
  );
  const byMoment = table(
    ['runbook', 'moment', ...TALLY_HEADER],
    groups(result.cases, (c) => `${c.runbook}\u0000${c.moment}`).map(([key, cases]) => {
      const [runbook, moment] = key.split('\u0000');
      return [runbook!, moment!, ...tallyCells(tally(cases))];
    }),
  );
  const inFlight = table(
    ['runbook', 'step (call held open)', 'cancels sent', 'orphans', 'not restored'],
    groups(
      result.cases.filter((c) => c.moment === 'in-flight' && c.point),
      (c) => `${c.runbook}\u0000${c.point!.step} (${c.point!.hold})`,
    ).map(([key, cases]) => {
      const [runbook, step] = key.split('\u0000');
      const t = tally(cases);
      return [runbook!, step!, t.cancels, t.orphans, t.notRestored];
    }),
  );
  const problems = result.cases
    .filter((c) => c.leftovers.length > 0 || c.notRestored.length > 0 || c.ended === 'failed')
    .map(
      (c) =>
        `- ${c.description} → ended ${c.ended} (at ${c.at}); left behind: ${c.leftovers.join('; ') || 'nothing'}; ` +
        `not restored: ${c.notRestored.join('; ') || 'nothing'}. Again: \`${reproduceCommand(result, c)}\``,
    );
  return [
    `### Cancel at random moments (seed ${result.seed}, ${result.generatedAt})`,
    overview,
    byMoment,
    inFlight,
    '¹ no cancel reached the run while it could still undo its work: the cancel came with or after ' +
      'its last change, or its point was never reached (a skipped step). The run finished and owns ' +
      'what its runbook documents; the audit checks that it made exactly that.',
    ...(problems.length ? [`Cases that left something behind or failed:\n\n${problems.join('\n')}`] : []),
  ].join('\n\n');
}
