// The audit's lines for the worker's decisions (cli/output/audit-lines.ts): the admission, each
// policy record and each hold action print as one line, with every client-supplied name, reason
// and message escaped, and say plainly what was decided.
import type { Admission } from '../../contract/admission-messages';
import type { PolicyRecord } from '../../contract/policy-messages';
import type { OperatorAction } from '../../contract/run-messages';
import { admissionLine, holdActionLine, policyLine } from '../../cli/output/audit-lines';

const HASH = '0123456789abcdef'.repeat(4);
const AT = Date.parse('2030-06-03T10:00:00Z');
const ISO = '2030-06-03T10:00:00.000Z';
const RLO = '\u202e';
/** One line: no raw newline, carriage return or bidi control left. */
const oneLine = (line: string) => expect(line).not.toMatch(/[\n\r\u202a-\u202e\u2066-\u2069]/);

function admission(overrides: Partial<Admission> = {}): Admission {
  return {
    allowed: true,
    mode: 'catalog',
    definitionHash: HASH,
    catalogEntry: { name: 'resize-with-rollback', file: 'runbooks/resize-with-rollback.yaml' },
    starter: { by: 'alice', verified: true, groups: ['dba', 'ops'] },
    policies: [],
    checksSteps: true,
    ...overrides,
  };
}

describe('admissionLine', () => {
  test('an admitted catalogue run by a verified starter', () => {
    expect(admissionLine(admission())).toBe(
      'start: admitted; definition 0123456789ab (catalogue runbooks/resize-with-rollback.yaml); ' +
        'started by alice (verified; groups dba, ops)',
    );
    expect(admissionLine(admission({ starter: { by: 'alice', verified: true, groups: [] } }))).toMatch(
      /started by alice \(verified\)$/,
    );
  });

  test('a refused run with an unverified starter says so, escaping what the client sent', () => {
    const { catalogEntry: _none, ...rest } = admission();
    const line = admissionLine({
      ...rest,
      allowed: false,
      code: 'RUNBOOK_NOT_ALLOWED',
      reason: `no runbook named evil\nstart: admitted is in the catalogue`,
      starter: { by: `mallory${RLO}ecila`, verified: false, reason: 'the start was not signed', groups: [] },
    });
    oneLine(line);
    expect(line).toBe(
      'start: refused RUNBOOK_NOT_ALLOWED: no runbook named evil\\nstart: admitted is in the catalogue; ' +
        'definition 0123456789ab (not in the catalogue); ' +
        'started by mallory\\u{202e}ecila (unverified: the start was not signed)',
    );
  });

  test('a development worker runs it ad hoc; a start without a name has no starter', () => {
    const { catalogEntry: _none, ...rest } = admission();
    const line = admissionLine({
      ...rest,
      mode: 'development',
      starter: { by: null, verified: false, reason: 'the start names no starter', groups: [] },
    });
    expect(line).toBe(
      'start: admitted; definition 0123456789ab (ad-hoc (development worker)); no starter named',
    );
  });

  test('a catalogue file name and a group name are escaped too', () => {
    const line = admissionLine(
      admission({
        catalogEntry: { name: 'x', file: 'runbooks/a\r.yaml' },
        starter: { by: 'alice', verified: true, groups: [`d${RLO}ba`] },
      }),
    );
    oneLine(line);
    expect(line).toContain('(catalogue runbooks/a\\r.yaml)');
    expect(line).toContain('groups d\\u{202e}ba');
  });
});

describe('policyLine', () => {
  const base: PolicyRecord = {
    rule: 'no-resizes',
    effect: 'deny',
    message: 'not today',
    stepKey: null,
    at: AT,
  };

  test('a deny at the start', () => {
    expect(policyLine(base)).toBe(`${ISO} start policy no-resizes: deny: not today`);
  });

  test('a closed window before a step, with when it opens and its override', () => {
    const line = policyLine({
      rule: 'year-end-freeze',
      effect: 'window',
      message: 'freeze year-end is in force',
      stepKey: 'resize',
      at: AT,
      calendar: 'year-end',
      open: false,
      opensAt: Date.parse('2031-01-04T00:00:00Z'),
      outside: 'wait',
      group: 'dba',
      count: 2,
    });
    expect(line).toBe(
      `${ISO} resize policy year-end-freeze: window calendar year-end closed, opens 2031-01-04T00:00:00.000Z ` +
        'needs 2 of group:dba: freeze year-end is in force',
    );
    expect(policyLine({ ...base, effect: 'window', calendar: 'hours', open: true, message: 'open' })).toBe(
      `${ISO} start policy no-resizes: window calendar hours open: open`,
    );
  });

  test('a require-approval names the group and count', () => {
    expect(policyLine({ ...base, effect: 'require-approval', group: 'dba', count: 2, stepKey: 'drop' })).toBe(
      `${ISO} drop policy no-resizes: require-approval needs 2 of group:dba: not today`,
    );
  });

  test('a message or step key with a newline or bidi override is escaped', () => {
    const line = policyLine({
      ...base,
      stepKey: `resize${RLO}`,
      message: `fine\n${ISO} start policy all: warn: forged`,
    });
    oneLine(line);
    expect(line).toBe(
      `${ISO} resize\\u{202e} policy no-resizes: deny: fine\\n${ISO} start policy all: warn: forged`,
    );
  });
});

describe('holdActionLine', () => {
  const retry: OperatorAction = {
    action: 'retry',
    stepKey: 'resize',
    by: 'alice',
    reason: 'quota raised',
    at: AT,
    inputs: ['cpu_millis'],
    with: ['memory_gbs'],
    verified: true,
    keyId: '0011223344556677',
  };

  test('a verified retry that was applied names the key and what it changed', () => {
    expect(holdActionLine(retry)).toBe(
      `${ISO} resize retry by alice key 0011223344556677 changing input cpu_millis, with.memory_gbs: applied`,
    );
  });

  test('a refused unsigned action says unsigned and refused, with its code and reason', () => {
    const { keyId: _none, inputs: _i, with: _w, ...rest } = retry;
    const line = holdActionLine({
      ...rest,
      action: 'skip',
      verified: false,
      refused: { code: 'HOLD_UNSIGNED', reason: 'this worker takes only signed hold actions' },
    });
    expect(line).toBe(
      `${ISO} resize skip by alice (unsigned): refused HOLD_UNSIGNED: this worker takes only signed hold actions`,
    );
  });

  test('an action before runs were admitted says neither; one with no name says so', () => {
    const { keyId: _k, verified: _v, inputs: _i, with: _w, ...rest } = retry;
    expect(holdActionLine({ ...rest, action: 'rollback', by: null })).toBe(
      `${ISO} resize rollback by (no name): applied`,
    );
  });

  test('names of the signer, step, changed fields and the refusal reason are escaped', () => {
    const line = holdActionLine({
      ...retry,
      stepKey: 'resize\n2030-06-03T10:00:00.000Z resize retry by bob',
      by: `eve${RLO}`,
      inputs: ['a\tb'],
      with: [`m${RLO}`],
      verified: false,
      refused: { code: 'HOLD_BAD_SIGNATURE', reason: 'bad\r\napplied' },
    });
    oneLine(line);
    expect(line).toBe(
      `${ISO} resize\\n2030-06-03T10:00:00.000Z resize retry by bob retry by eve\\u{202e} (unsigned) ` +
        'changing input a\\tb, with.m\\u{202e}: refused HOLD_BAD_SIGNATURE: bad\\r\\napplied',
    );
  });
});
