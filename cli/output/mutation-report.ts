// How `tideline test --mutate` shows its results: a line per mutant (killed, by which case and
// which expectations; survived, with its diff; equivalent or a known survivor, with the reason — a
// known survivor with its diff too), then a summary per
// runbook and overall; or one JSON object (`--json`).
import { assertNever } from '../../cloud/assert-never';
import { inconclusiveByTime, mutationFailed, type MutantResult } from '../../rehearsal/mutation/run-mutants';
import type { MutationTarget } from '../../rehearsal/mutation/mutation-plan';
import type { Style } from './style';
import { formatDuration } from './style';

function diffLines(result: MutantResult, style: Style): string[] {
  return [
    `      ${style.dim(`${result.runbook}:${result.mutant.diff.line}`)}`,
    ...result.mutant.diff.lines.map(
      (line) => `      ${line.startsWith('-') ? style.red(line) : style.green(line)}`,
    ),
  ];
}

export function mutantLines(result: MutantResult, style: Style): string[] {
  const name = `${result.runbook} ${style.bold(result.mutant.id)}`;
  const { verdict } = result;
  switch (verdict.status) {
    case 'killed': {
      const { kill, time } = verdict;
      if (time !== undefined && inconclusiveByTime(result)) {
        const took =
          time.baselineMs === undefined
            ? 'not ended in the baseline'
            : `${formatDuration(time.baselineMs)} in the baseline`;
        return [
          `${style.yellow('?')} inconclusive (time) ${name} at "${kill.case}": its ${time.ran === 'step' ? 'step' : 'case'} limit of ${formatDuration(time.limitMs)} ran out, ${took}; not counted as a kill`,
          ...diffLines(result, style),
        ];
      }
      const head = `${style.green('✓')} killed ${name} by "${kill.case}": ${kill.failed.join(', ')}`;
      if (verdict.listedAsSurvivor === true)
        return [`${head} ${style.red('(listed as a known survivor: its entry can go)')}`];
      if (!verdict.onlyByTimeout) return [head];
      return [
        `${head} ${style.dim('(only by a timeout)')}`,
        ...(kill.message !== undefined ? [`      ${style.dim(kill.message)}`] : []),
        ...diffLines(result, style),
      ];
    }
    case 'survived':
      if (verdict.known !== undefined)
        return [`${style.yellow('!')} known survivor ${name}: ${verdict.known}`, ...diffLines(result, style)];
      return [
        `${style.red('✗')} survived ${name} (${result.casesRun} cases ran)`,
        ...diffLines(result, style),
      ];
    case 'equivalent':
      return [`${style.dim('=')} equivalent ${name}: ${verdict.reason}`];
    default:
      return assertNever(verdict);
  }
}

interface Counts {
  mutants: number;
  /** Kills, without the inconclusive (time) ones. */
  killed: number;
  onlyByTimeout: number;
  /** Kills by time that the baseline does not back: reported, not counted as kills. */
  inconclusive: number;
  survived: number;
  /** Of the survivors, those the runbook's `.mutants.yaml` lists as known. */
  knownSurvivors: number;
  equivalent: number;
}

export function mutationCounts(results: readonly MutantResult[]): Counts {
  const of = (status: MutantResult['verdict']['status']) =>
    results.filter((r) => r.verdict.status === status).length;
  const kills = results.filter((r) => r.verdict.status === 'killed' && !inconclusiveByTime(r));
  return {
    mutants: results.length,
    killed: kills.length,
    onlyByTimeout: kills.filter((r) => r.verdict.status === 'killed' && r.verdict.onlyByTimeout).length,
    inconclusive: results.filter(inconclusiveByTime).length,
    survived: of('survived'),
    knownSurvivors: results.filter((r) => r.verdict.status === 'survived' && r.verdict.known !== undefined)
      .length,
    equivalent: of('equivalent'),
  };
}

function countsText(counts: Counts, style: Style): string {
  return [
    `${counts.mutants} mutants`,
    `${counts.killed} killed${counts.onlyByTimeout > 0 ? ` (${counts.onlyByTimeout} only by a timeout)` : ''}`,
    ...(counts.inconclusive > 0 ? [style.yellow(`${counts.inconclusive} inconclusive (time)`)] : []),
    `${counts.survived > counts.knownSurvivors ? style.red(`${counts.survived} survived`) : `${counts.survived} survived`}${counts.knownSurvivors > 0 ? ` (${counts.knownSurvivors} known)` : ''}`,
    `${counts.equivalent} equivalent`,
  ].join(', ');
}

/** A line per runbook, then the whole run's. */
export function mutationSummary(
  targets: readonly MutationTarget[],
  results: readonly MutantResult[],
  elapsedMs: number,
  style: Style,
): string[] {
  const width = Math.max(...targets.map((t) => t.runbook.length));
  return [
    ...targets.map(
      (target) =>
        `  ${target.runbook.padEnd(width)}  ${countsText(mutationCounts(results.filter((r) => r.runbook === target.runbook)), style)}`,
    ),
    `${countsText(mutationCounts(results), style)} (${formatDuration(elapsedMs)})`,
  ];
}

export function mutationJson(
  targets: readonly MutationTarget[],
  results: readonly MutantResult[],
  elapsedMs: number,
): string {
  const counts = mutationCounts(results);
  return JSON.stringify({
    ok: !mutationFailed(results),
    ...counts,
    durationMs: elapsedMs,
    runbooks: targets.map((target) => ({
      runbook: target.runbook,
      cases: target.cases.length,
      refused: target.refused,
      ...mutationCounts(results.filter((r) => r.runbook === target.runbook)),
    })),
    results: results.map((r) => ({
      runbook: r.runbook,
      id: r.mutant.id,
      operator: r.mutant.operator,
      step: r.mutant.stepId,
      diff: r.mutant.diff,
      casesRun: r.casesRun,
      durationMs: r.durationMs,
      ...r.verdict,
    })),
  });
}
