import { casesInKillOrder } from '../../rehearsal/mutation/run-mutants';

function timedCase(name: string, durationMs: number, stepIds: string[]) {
  return {
    name,
    baseline: {
      durationMs,
      steps: stepIds.map((id) => ({ key: id, id, kind: 'call', status: 'done' as const })),
    },
  };
}

describe("a mutant's cases in kill order", () => {
  const quick = timedCase('quick', 1_000, ['create', 'wait']);
  const slowCancel = timedCase('cancel', 30_000, ['create', 'wait', 'undo_start']);
  const middle = timedCase('middle', 5_000, ['create', 'wait', 'undo_start']);
  const other = timedCase('other', 2_000, ['create']);
  const cases = [slowCancel, quick, middle, other];

  test('the cases that reached the mutated step come first, each part fastest first', () => {
    expect(casesInKillOrder('undo_start', cases).map((c) => c.name)).toEqual([
      'middle',
      'cancel',
      'quick',
      'other',
    ]);
  });

  test('every case stays in the order, once', () => {
    expect(casesInKillOrder('wait', cases).map((c) => c.name)).toEqual([
      'quick',
      'middle',
      'cancel',
      'other',
    ]);
  });

  test('a step no case reached leaves them fastest first', () => {
    expect(casesInKillOrder('never', cases).map((c) => c.name)).toEqual([
      'quick',
      'other',
      'middle',
      'cancel',
    ]);
  });
});
