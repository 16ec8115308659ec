// `tideline test --mutate --junit FILE`: the mutants as JUnit XML. One <testsuite> per runbook,
// one <testcase> per mutant; a survivor is a <failure> with its diff, an equivalent one or a known
// survivor <skipped> with the reason, as is an inconclusive (time) kill, a kill passes (its case and expectations in <system-out>).
import { assertNever } from '../../cloud/assert-never';
import { inconclusiveByTime, type MutantResult } from '../../rehearsal/mutation/run-mutants';
import { xmlEscape } from './test-junit';

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function mutantXml(result: MutantResult): string[] {
  const head = `    <testcase classname="${xmlEscape(result.runbook)}" name="${xmlEscape(result.mutant.id)}" time="${seconds(result.durationMs)}"`;
  const diff = result.mutant.diff.lines.join('\n');
  const { verdict } = result;
  switch (verdict.status) {
    case 'killed': {
      if (inconclusiveByTime(result))
        return [
          `${head}>`,
          `      <skipped message="${xmlEscape(`inconclusive (time): the limit ran out at "${verdict.kill.case}", which the baseline does not back`)}"/>`,
          '    </testcase>',
        ];
      const listed =
        verdict.listedAsSurvivor === true ? ' (listed as a known survivor: remove its entry)' : '';
      const how = `killed by "${verdict.kill.case}" (${verdict.kill.file}): ${verdict.kill.failed.join(', ')}${verdict.onlyByTimeout ? ' (only by a timeout)' : ''}${listed}`;
      return [`${head}>`, `      <system-out>${xmlEscape(how)}</system-out>`, '    </testcase>'];
    }
    case 'survived':
      if (verdict.known !== undefined)
        return [
          `${head}>`,
          `      <skipped message="${xmlEscape(`known survivor: ${verdict.known}`)}"/>`,
          '    </testcase>',
        ];
      return [
        `${head}>`,
        `      <failure message="the mutant survived every case" type="MUTANT_SURVIVED">${xmlEscape(diff)}</failure>`,
        '    </testcase>',
      ];
    case 'equivalent':
      return [
        `${head}>`,
        `      <skipped message="${xmlEscape(`equivalent: ${verdict.reason}`)}"/>`,
        '    </testcase>',
      ];
    default:
      return assertNever(verdict);
  }
}

export function mutationJunitXml(results: readonly MutantResult[]): string {
  const runbooks = [...new Set(results.map((r) => r.runbook))];
  const survived = (list: readonly MutantResult[]) =>
    list.filter((r) => r.verdict.status === 'survived').length;
  const skipped = (list: readonly MutantResult[]) =>
    list.filter((r) => r.verdict.status === 'equivalent').length;
  const time = (list: readonly MutantResult[]) => seconds(list.reduce((sum, r) => sum + r.durationMs, 0));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="tideline test --mutate" tests="${results.length}" failures="${survived(results)}" errors="0" time="${time(results)}">`,
  ];
  for (const runbook of runbooks) {
    const of = results.filter((r) => r.runbook === runbook);
    lines.push(
      `  <testsuite name="${xmlEscape(runbook)}" tests="${of.length}" failures="${survived(of)}" errors="0" skipped="${skipped(of)}" time="${time(of)}">`,
    );
    for (const result of of) lines.push(...mutantXml(result));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
