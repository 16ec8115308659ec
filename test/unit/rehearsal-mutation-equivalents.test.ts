// A runbook's `.mutants.yaml`: the equivalent mutants it lists come back with their reasons; an
// entry naming a mutant the runbook does not have (any more) is a problem at its file:line:column
// with the closest id; a file that does not fit the format is refused; no file lists none.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadEquivalents, mutantsFileOf } from '../../rehearsal/mutation/equivalent-mutants';

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'tideline-equivalents-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const IDS = new Set(['weaken-wait:ready=true', 'drop-step:delete']);
const display = (absolute: string) => path.relative(dir, absolute);

test('lives beside the runbook; without a file, no mutant is equivalent', () => {
  const runbook = path.join(dir, 'thing.yaml');
  expect(mutantsFileOf(runbook)).toBe(path.join(dir, 'thing.mutants.yaml'));
  expect(loadEquivalents(runbook, IDS, display)).toEqual({
    ok: true,
    equivalent: new Map(),
    survivors: new Map(),
  });
});

test('lists equivalent mutants and known survivors with their reasons', () => {
  const runbook = path.join(dir, 'thing.yaml');
  writeFileSync(
    mutantsFileOf(runbook),
    [
      'equivalent:',
      '  - mutant: weaken-wait:ready=true',
      '    reason: the next wait waits for READY too',
      'survivors:',
      '  - mutant: drop-step:delete',
      '    reason: no case rolls back yet',
      '',
    ].join('\n'),
  );
  expect(loadEquivalents(runbook, IDS, display)).toEqual({
    ok: true,
    equivalent: new Map([['weaken-wait:ready=true', 'the next wait waits for READY too']]),
    survivors: new Map([['drop-step:delete', 'no case rolls back yet']]),
  });
});

test('an entry that matches no mutant is a problem at its line and column, with the closest id', () => {
  const runbook = path.join(dir, 'thing.yaml');
  writeFileSync(
    mutantsFileOf(runbook),
    [
      'equivalent:',
      '  - mutant: drop-step:delete',
      '    reason: nothing reads what it deleted',
      '  - mutant: weaken-wait:redy=true',
      '    reason: the next wait waits for READY too',
      '',
    ].join('\n'),
  );
  expect(loadEquivalents(runbook, IDS, display)).toEqual({
    ok: false,
    problems: [
      {
        code: 'MUTANT_UNKNOWN',
        file: 'thing.mutants.yaml',
        line: 4,
        column: 13,
        message: 'equivalent[1]: the runbook has no mutant "weaken-wait:redy=true" (any more)',
        hint: 'did you mean `weaken-wait:ready=true`?',
      },
    ],
  });
});

test('an entry without a reason is refused', () => {
  const runbook = path.join(dir, 'thing.yaml');
  writeFileSync(mutantsFileOf(runbook), 'equivalent:\n  - mutant: drop-step:delete\n');
  const check = loadEquivalents(runbook, IDS, display);
  expect(check.ok).toBe(false);
  expect(!check.ok && check.problems[0]).toMatchObject({ code: 'MUTANTS_FILE_INVALID', line: 2 });
});
