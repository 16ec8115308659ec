import { mutationJunitXml } from '../../cli/output/mutation-junit';
import { mutantLines, mutationCounts } from '../../cli/output/mutation-report';
import { PLAIN_STYLE } from '../../cli/output/style';
import type { MutantResult, MutantVerdict } from '../../rehearsal/mutation/run-mutants';
import type { RunbookDefinition } from '../../dsl/definition';

function result(id: string, verdict: MutantVerdict): MutantResult {
  return {
    runbook: 'runbooks/x.yaml',
    mutant: {
      id,
      operator: 'weaken-wait',
      stepId: 'ready',
      diff: { line: 3, lines: ['- until: READY', '+ until: PAUSED'] },
      definition: {} as RunbookDefinition,
    },
    verdict,
    casesRun: 2,
    durationMs: 40_000,
  };
}

const kill = { file: 'x.test.yaml', case: 'slow', failed: ['TEST_CASE_TIMEOUT'], byTimeout: true };
const byTime = (conclusive: boolean): MutantVerdict => ({
  status: 'killed',
  kill,
  onlyByTimeout: true,
  time: { ran: 'case', limitMs: 30_000, baselineMs: conclusive ? 5_000 : 20_000, conclusive },
});

describe('tideline test --mutate: kills by time', () => {
  const results = [
    result('a', byTime(true)),
    result('b', byTime(false)),
    result('c', {
      status: 'killed',
      kill: { ...kill, byTimeout: false, failed: ['calls'] },
      onlyByTimeout: false,
    }),
  ];

  test('one the baseline does not back is inconclusive, not a kill', () => {
    expect(mutationCounts(results)).toMatchObject({ killed: 2, onlyByTimeout: 1, inconclusive: 1 });
    const [line] = mutantLines(results[1] as MutantResult, PLAIN_STYLE);
    expect(line).toContain('inconclusive (time)');
    expect(line).toContain('not counted as a kill');
    expect(line).not.toContain('killed');
  });

  test('one the baseline backs stays a kill only by a timeout', () => {
    const [line] = mutantLines(results[0] as MutantResult, PLAIN_STYLE);
    expect(line).toContain('killed');
    expect(line).toContain('(only by a timeout)');
  });
});

describe('tideline test --mutate --junit: kills by time', () => {
  test('one the baseline does not back is skipped, saying why', () => {
    const xml = mutationJunitXml([result('b', byTime(false)), result('a', byTime(true))]);
    expect(xml).toContain('<skipped message="inconclusive (time)');
    expect(xml).toMatch(/name="a"[^>]*>\s*<system-out>killed by/);
  });
});
