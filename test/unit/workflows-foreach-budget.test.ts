// A foreach's error budget and ramp (workflows/foreach-budget.ts): how many failed items a budget
// tolerates, how a ramp widens, the report of a spent budget, and which `maxErrors` the schema takes.
import type { ForeachStepDefinition } from '../../dsl/definition';
import { checkRunbookText, loadRunbookText } from '../../dsl/loader';
import {
  allowedFailures,
  budgetReport,
  BudgetTally,
  percentHundredths,
  positionRanges,
  rampAfterFailure,
  rampAfterSuccess,
  rampStart,
  type ItemOutcome,
} from '../../workflows/foreach-budget';

describe('allowedFailures', () => {
  test('a count is taken as written, whatever the number of items', () => {
    expect(allowedFailures(2, 30)).toBe(2);
    expect(allowedFailures(0, 30)).toBe(0);
    expect(allowedFailures(50, 3)).toBe(50); // more than the items: never stops early
  });

  test('a percentage of the items is floored', () => {
    expect(allowedFailures('10%', 30)).toBe(3);
    expect(allowedFailures('10%', 25)).toBe(2); // 2.5
    expect(allowedFailures('5%', 10)).toBe(0); // 0.5: the first failure stops new starts
    expect(allowedFailures('20%', 500)).toBe(100);
    expect(allowedFailures('12.5%', 8)).toBe(1);
    expect(allowedFailures('33.33%', 3)).toBe(0); // 0.9999
    expect(allowedFailures('33.34%', 3)).toBe(1); // 1.0002
    expect(allowedFailures('0%', 1000)).toBe(0);
  });

  test('100% tolerates every item failing, and exact products are not lost to floating point', () => {
    for (const n of [0, 1, 7, 100, 333, 3000]) expect(allowedFailures('100%', n)).toBe(n);
    // 0.29 * 100 is 28.999999999999996 in floating point; hundredths keep it 29.
    expect(allowedFailures('0.29%', 10_000)).toBe(29);
    expect(allowedFailures('14.3%', 1000)).toBe(143);
  });

  test('an empty list has a budget of 0 (and nothing that could fail)', () => {
    expect(allowedFailures('50%', 0)).toBe(0);
    expect(allowedFailures(3, 0)).toBe(3);
  });

  test('absent: 0, the first failure stops new starts', () => {
    expect(allowedFailures(undefined, 30)).toBe(0);
  });

  test('percentages are read in hundredths', () => {
    expect(percentHundredths('10%')).toBe(1000);
    expect(percentHundredths('2.5%')).toBe(250);
    expect(percentHundredths('0.05%')).toBe(5);
    expect(() => percentHundredths('ten%')).toThrow(RangeError);
  });
});

describe('ramp', () => {
  test('doubles after as many successes in a row as it is wide, up to the concurrency', () => {
    const state = rampStart({ start: 1, factor: 2 }, 10);
    const widths: number[] = [state.width];
    for (let i = 0; i < 20; i++) {
      rampAfterSuccess(state, 10);
      widths.push(state.width);
    }
    // 1 success → 2; 2 more → 4; 4 more → 8; 8 more → 10 (capped).
    expect(widths.slice(0, 16)).toEqual([1, 2, 2, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 10]);
    expect(widths[20]).toBe(10);
  });

  test('a failure stops the widening for good; the width stays', () => {
    const state = rampStart({ start: 2, factor: 1.5 }, 20);
    rampAfterSuccess(state, 20);
    rampAfterSuccess(state, 20);
    expect(state.width).toBe(3); // ceil(2 × 1.5)
    rampAfterFailure(state);
    for (let i = 0; i < 10; i++) rampAfterSuccess(state, 20);
    expect(state.width).toBe(3);
  });

  test('a start wider than the concurrency starts at the concurrency', () => {
    expect(rampStart({ start: 8, factor: 2 }, 3).width).toBe(3);
  });
});

describe('the report of a spent budget', () => {
  test('ranges of positions', () => {
    expect(positionRanges([])).toBe('none');
    expect(positionRanges([3, 0, 1, 2, 7, 9, 10])).toBe('0-3, 7, 9-10');
  });

  test('says what succeeded, failed, was cancelled and never started, and the first failure', () => {
    const outcomes: ItemOutcome[] = [
      'succeeded',
      'failed',
      'succeeded',
      'failed',
      'cancelled',
      'failed',
      'not-started',
      'not-started',
    ];
    const failures = [3, 1, 5].map((position) => ({
      position,
      stepKey: `each[${position}].stop`,
      type: 'ASSERTION_FAILED',
      message: `item ${position} is bad`,
    }));
    expect(budgetReport(2, outcomes, failures)).toBe(
      '3 of 8 items failed, more than maxErrors 2 allows: failed 1, 3, 5 (3); succeeded 0, 2 (2); ' +
        'cancelled 4 (1); not started 6-7 (2); first failure at each[1].stop: ASSERTION_FAILED: item 1 is bad',
    );
    expect(budgetReport('25%', outcomes, failures)).toContain('more than maxErrors 25% (2 items) allows');
  });
});

describe('BudgetTally across batches', () => {
  const step = (fields: Partial<ForeachStepDefinition>): ForeachStepDefinition => ({
    kind: 'foreach',
    id: 'each',
    items: '[]',
    as: 'item',
    concurrency: 4,
    steps: [],
    compensate: [],
    continueOnError: false,
    ...fields,
  });
  const failure = (position: number) => ({ position, stepKey: `k${position}`, type: 'T', message: 'm' });

  test('each batch gets what the earlier ones left of the budget; positions become overall ones', () => {
    const tally = new BudgetTally(step({ maxErrors: 3, onMaxErrors: 'cancel' }), 250, 4);
    expect(tally.forBatch()).toEqual({ allowed: 3, cancelInFlight: true });
    const first: ItemOutcome[] = new Array<ItemOutcome>(100).fill('succeeded');
    first[10] = 'failed';
    first[20] = 'failed';
    tally.add(0, { outcomes: first, failures: [failure(10), failure(20)], exceeded: false });
    expect(tally.forBatch().allowed).toBe(1);
    const second: ItemOutcome[] = new Array<ItemOutcome>(100).fill('not-started');
    second.fill('succeeded', 0, 5);
    second[5] = 'failed';
    second[6] = 'failed';
    tally.add(100, { outcomes: second, failures: [failure(5), failure(6)], exceeded: true });
    expect(tally.exceeded).toBe(true);
    expect(tally.failures.map((f) => f.position)).toEqual([10, 20, 105, 106]);
    const spent = tally.failure();
    expect(spent?.type).toBe('FOREACH_MAX_ERRORS');
    expect(spent?.message).toContain(
      '4 of 250 items failed, more than maxErrors 3 allows: failed 10, 20, 105-106 (4)',
    );
    expect(spent?.message).toContain('not started 107-249 (143)');
  });

  test('a ramp without a budget fails with its first failed item, as a foreach without either', () => {
    const tally = new BudgetTally(step({ ramp: { start: 1, factor: 2 } }), 5, 4);
    expect(tally.forBatch()).toMatchObject({ allowed: 0, ramp: { width: 1, widening: true } });
    tally.add(0, {
      outcomes: ['succeeded', 'failed', 'not-started', 'not-started', 'not-started'],
      failures: [failure(1)],
      exceeded: true,
    });
    expect(tally.failure()).toMatchObject({ stepKey: 'k1', type: 'T', message: 'm' });
  });

  test('within the budget there is no failure', () => {
    const tally = new BudgetTally(step({ maxErrors: '100%' }), 2, 4);
    tally.add(0, { outcomes: ['failed', 'failed'], failures: [failure(0), failure(1)], exceeded: false });
    expect(tally.failure()).toBeUndefined();
  });
});

describe('the schema', () => {
  const runbook = (fields: string) => `
apiVersion: tideline/v1
name: budget
description: A budgeted loop.
steps:
  - id: each
    foreach: '[1, 2, 3]'
    concurrency: 3
${fields}
    steps: [{ id: ok, assert: 'true' }]
`;

  test.each([['0'], ['7'], ["'0%'"], ["'10%'"], ["'2.5%'"], ["'100%'"], ["'100.00%'"]])(
    'takes maxErrors %s',
    (value) => {
      expect(checkRunbookText(runbook(`    maxErrors: ${value}`), 'b.yaml').problems).toEqual([]);
    },
  );

  test.each([["'101%'"], ["'10 %'"], ["'1.234%'"], ["'-1%'"], ['1.5'], ['-1'], ["'ten'"], ["'10'"]])(
    'refuses maxErrors %s',
    (value) => {
      const { problems } = checkRunbookText(runbook(`    maxErrors: ${value}`), 'b.yaml');
      expect(problems.map((p) => [p.rule, p.path])).toEqual([['schema', ['steps', 0, 'maxErrors']]]);
    },
  );

  test('the definition has the fields only when written, with the ramp defaults filled in', () => {
    const plain = loadRunbookText(runbook(''), 'b.yaml').steps[0] as ForeachStepDefinition;
    expect('onMaxErrors' in plain || 'ramp' in plain || 'maxErrors' in plain).toBe(false);
    const budgeted = loadRunbookText(
      runbook("    maxErrors: '10%'\n    onMaxErrors: cancel\n    ramp: { factor: 3 }"),
      'b.yaml',
    ).steps[0] as ForeachStepDefinition;
    expect(budgeted).toMatchObject({
      maxErrors: '10%',
      onMaxErrors: 'cancel',
      ramp: { start: 1, factor: 3 },
    });
  });
});
