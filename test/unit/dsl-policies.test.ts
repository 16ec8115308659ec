// Policy rules over a run's and a step's context: who a deny rule stops, windows and freezes,
// approvals, where rules are evaluated (run start or steps), and failing closed when a rule cannot
// be evaluated. The section's checks are in dsl-policies-checks.test.ts.
import { parse as parseYaml } from 'yaml';
import type { PolicyDecision } from '../../dsl/policies';
import { describeRules, evaluatePolicies, hasStartRules } from '../../dsl/policies';
import {
  PROD_SERVICE,
  SECTION,
  TUESDAY_MORNING,
  compile,
  context,
  governance,
  ms,
} from '../helpers/policy-fixtures';

const byRule = (decisions: PolicyDecision[], rule: string) => decisions.find((d) => d.rule === rule);

describe('resizing a PROD service above 4 CPUs needs a group:dba starter', () => {
  it('denies bob, who is not in dba', () => {
    const verdict = evaluatePolicies(governance, context(), TUESDAY_MORNING);
    expect(verdict.denied).toBe(true);
    expect(byRule(verdict.decisions, 'prod-resize-needs-dba')).toEqual({
      rule: 'prod-resize-needs-dba',
      effect: 'deny',
      message: 'Only group:dba may resize PROD above 4 CPUs.',
    });
  });

  it('lets alice, who is in dba, through (the other PROD rules still apply)', () => {
    const alice = context({ starter: { name: 'alice', verified: true, groups: ['dba'] } });
    const verdict = evaluatePolicies(governance, alice, TUESDAY_MORNING);
    expect(verdict.denied).toBe(false);
    expect(verdict.decisions.map((d) => d.rule)).toEqual([
      'prod-needs-two',
      'prod-changes-in-business-hours',
      'freeze',
    ]);
    expect(byRule(verdict.decisions, 'prod-needs-two')).toEqual({
      rule: 'prod-needs-two',
      effect: 'require-approval',
      group: 'dba',
      count: 2,
      message: 'policy prod-needs-two needs 2 approvals from group:dba',
    });
    expect(verdict).toMatchObject({ waitUntil: null, refusedByWindow: false });
  });

  it('does not deny a resize to 4 CPUs or less', () => {
    const small = context({ step: { key: 'resize', action: 'service.resize', with: { cpu_millis: 4000 } } });
    expect(evaluatePolicies(governance, small, TUESDAY_MORNING).denied).toBe(false);
  });
});

describe('windows and freezes', () => {
  /** Monday 22 December 2025, 10:00 CET: business hours, but inside the year-end freeze. */
  const IN_FREEZE = ms('2025-12-22T09:00:00Z');
  const dba = { name: 'alice', verified: true, groups: ['dba'] };

  it('a freeze in force gives a closed window decision for a PROD target', () => {
    const verdict = evaluatePolicies(governance, context({ starter: dba }), IN_FREEZE);
    expect(byRule(verdict.decisions, 'freeze')).toEqual({
      rule: 'freeze',
      effect: 'window',
      calendar: 'year-end-freeze',
      open: false,
      outside: 'wait',
      opensAt: ms('2026-01-03T00:00:00Z'),
      closesAt: null,
      override: { group: 'dba', count: 2 },
      message:
        'freeze year-end-freeze is in force until 2026-01-03T00:00+00:00 (UTC): the change waits ' +
        '(unless 2 approvals from group:dba let it through)',
    });
    // 3 January 2026 is a Saturday: the first time both calendars let a change happen is Monday 09:00 CET.
    expect(verdict.waitUntil).toBe(ms('2026-01-05T08:00:00Z'));
    expect(verdict.refusedByWindow).toBe(false);
  });

  it('gives nothing for a DEV target', () => {
    const dev = context({ starter: dba, target: { ...PROD_SERVICE, environment: 'DEV' } });
    expect(evaluatePolicies(governance, dev, IN_FREEZE)).toEqual({
      decisions: [],
      denied: false,
      waitUntil: null,
      refusedByWindow: false,
    });
  });

  it('business hours across a weekend: wait until Monday 09:00 Europe/Berlin', () => {
    // Saturday 8 November 2025, 15:00 CET.
    const verdict = evaluatePolicies(governance, context({ starter: dba }), ms('2025-11-08T14:00:00Z'));
    const window = byRule(verdict.decisions, 'prod-changes-in-business-hours');
    expect(window).toMatchObject({ open: false, opensAt: ms('2025-11-10T08:00:00Z'), closesAt: null });
    expect(window?.message).toBe(
      'outside window business-hours, which opens 2025-11-10T09:00+01:00 (Europe/Berlin): the change waits',
    );
    expect(verdict.waitUntil).toBe(ms('2025-11-10T08:00:00Z'));
  });

  it('inside business hours: open, with when it closes', () => {
    const verdict = evaluatePolicies(governance, context({ starter: dba }), TUESDAY_MORNING);
    expect(byRule(verdict.decisions, 'prod-changes-in-business-hours')).toMatchObject({
      open: true,
      opensAt: TUESDAY_MORNING,
      closesAt: ms('2025-11-04T16:00:00Z'),
    });
  });

  it('a refusing window that is closed refuses instead of waiting', () => {
    const section = parseYaml(SECTION) as { calendars: unknown; policies: unknown[] };
    const refusing = compile({
      calendars: section.calendars,
      policies: [
        { name: 'hours', when: 'true', effect: 'window', calendar: 'business-hours', outside: 'refuse' },
      ],
    });
    const verdict = evaluatePolicies(refusing, context(), ms('2025-11-08T14:00:00Z'));
    expect(verdict).toMatchObject({ refusedByWindow: true, waitUntil: null });
    expect(verdict.decisions[0]?.message).toContain(': the change is refused');
  });
});

describe('where rules are evaluated', () => {
  const rules = compile({
    calendars: { freeze: { kind: 'freeze', timezone: 'UTC', from: '2025-12-20', until: '2026-01-03' } },
    policies: [
      { name: 'verified-starters', when: '!starter.verified', effect: 'deny', message: 'sign your start' },
      { name: 'no-freeze', when: 'true', effect: 'window', calendar: 'freeze', outside: 'refuse' },
      { name: 'deletes', when: "step.action == 'service.delete'", effect: 'warn' },
      { name: 'weekend', when: "now.getDayOfWeek('Europe/Berlin') == 6", effect: 'warn', at: 'both' },
    ],
  });
  const unverified = { name: 'mallory', verified: false, groups: [] };
  const SATURDAY = ms('2025-11-08T12:00:00Z');

  it('infers start for run rules, both for a window reading neither step nor target, steps otherwise', () => {
    expect(describeRules(rules).map((rule) => [rule.name, rule.at])).toEqual([
      ['verified-starters', 'start'],
      ['no-freeze', 'both'],
      ['deletes', 'steps'],
      ['weekend', 'both'],
    ]);
    expect(hasStartRules(rules)).toBe(true);
  });

  it('at run start (step null) evaluates only start rules; `now` is the time given', () => {
    const verdict = evaluatePolicies(
      rules,
      context({ starter: unverified, step: null, target: null }),
      SATURDAY,
    );
    expect(verdict.decisions.map((d) => [d.rule, d.effect])).toEqual([
      ['verified-starters', 'deny'],
      ['no-freeze', 'window'],
      ['weekend', 'warn'],
    ]);
    expect(verdict.denied).toBe(true);
  });

  it('before a step evaluates only step rules', () => {
    const step = { key: 'drop', action: 'service.delete', with: {} };
    const verdict = evaluatePolicies(
      rules,
      context({ starter: unverified, step }),
      ms('2025-12-24T12:00:00Z'),
    );
    expect(verdict.decisions.map((d) => d.rule)).toEqual(['no-freeze', 'deletes']);
    expect(verdict).toMatchObject({ denied: false, refusedByWindow: true, waitUntil: null });
  });
});

describe('failing closed', () => {
  const rules = compile({
    policies: [
      { name: 'prod-deny', when: "target.environment == 'PROD'", effect: 'deny' },
      { name: 'guarded', when: "target != null && target.environment == 'PROD'", effect: 'deny' },
      {
        name: 'exempt',
        when: 'true',
        unless: "target.environment == 'DEV'",
        effect: 'require-approval',
        approvals: { group: 'ops', count: 1 },
      },
    ],
  });

  it('a rule reading the target when the target is null applies, and says why', () => {
    const verdict = evaluatePolicies(rules, context({ target: null }), TUESDAY_MORNING);
    expect(verdict.denied).toBe(true);
    expect(verdict.decisions).toEqual([
      {
        rule: 'prod-deny',
        effect: 'deny',
        message:
          'denied by policy prod-deny; `when` could not be evaluated (No such key: environment), so the rule applies',
      },
      {
        rule: 'exempt',
        effect: 'require-approval',
        group: 'ops',
        count: 1,
        message:
          'policy exempt needs 1 approval from group:ops; `unless` could not be evaluated (No such key: environment), so the rule applies',
      },
    ]);
  });

  it('with the target known, the same rules decide normally', () => {
    const dev = context({ target: { ...PROD_SERVICE, environment: 'DEV' } });
    expect(evaluatePolicies(rules, dev, TUESDAY_MORNING).decisions).toEqual([]);
  });
});
