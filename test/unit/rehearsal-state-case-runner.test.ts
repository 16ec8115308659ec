// How a state case compares the findings of a drift check with those it lists: exactly, by
// service name and rule — a listed finding not found is a mismatch at its entry, a finding not
// listed one at the list, with its severity — whatever the order.
import { findingMismatches } from '../../rehearsal/state-case-runner';
import type { DriftFinding, DriftReport } from '../../state/drift-check';

const at = (path: readonly (string | number)[]) => ({ line: path.length, column: path.length + 10 });

function finding(service: string, rule: string, severity: DriftFinding['severity'] = 'error'): DriftFinding {
  return { rule, severity, service: { id: `id-${service}`, name: service }, expected: 'true', found: {} };
}

function report(...findings: DriftFinding[]): DriftReport {
  return { state: 'prod-fleet', projectId: 'p', checked: {}, findings };
}

test('the same findings in another order match', () => {
  expect(
    findingMismatches(
      { locate: at },
      ['findings'],
      [
        { service: 'search', rule: 'prod-has-pooler' },
        { service: 'billing', rule: 'prod-has-ha' },
      ],
      report(finding('billing', 'prod-has-ha'), finding('search', 'prod-has-pooler', 'warning')),
    ),
  ).toEqual([]);
});

test('a listed finding not found and a found one not listed are each a mismatch at their place', () => {
  expect(
    findingMismatches(
      { locate: at },
      ['expect', 'findings'],
      [{ service: 'billing', rule: 'prod-has-pooler' }],
      report(finding('billing', 'prod-has-ha'), finding('search', 'prod-has-pooler', 'warning')),
    ),
  ).toEqual([
    {
      what: 'expect.findings[0]',
      expected: 'billing breaks prod-has-pooler',
      actual: 'not found',
      at: { line: 3, column: 13 },
    },
    {
      what: 'expect.findings',
      expected: 'not listed',
      actual: 'billing breaks prod-has-ha [error]',
      at: { line: 2, column: 12 },
    },
    {
      what: 'expect.findings',
      expected: 'not listed',
      actual: 'search breaks prod-has-pooler [warning]',
      at: { line: 2, column: 12 },
    },
  ]);
});

test('no findings listed: a clean check matches, any finding does not', () => {
  expect(findingMismatches({ locate: at }, ['findings'], [], report())).toEqual([]);
  expect(
    findingMismatches({ locate: at }, ['findings'], [], report(finding('ledger', 'prod-has-ha', 'info'))),
  ).toHaveLength(1);
});
