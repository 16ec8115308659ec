// The governance section's checks: names, references, CEL syntax, unknown variables and types,
// each problem with its path in the section, before any run.
import { parse as parseYaml } from 'yaml';
import { describeRules, hasStartRules, hasStepRules } from '../../dsl/policies';
import { SECTION, compile, governance, problemsOf } from '../helpers/policy-fixtures';

describe('compiling the governance section', () => {
  it('compiles the documented example and lists its rules', () => {
    expect(describeRules(governance)).toEqual([
      {
        name: 'prod-resize-needs-dba',
        effect: 'deny',
        description: 'Resizing a PROD service above 4 CPUs needs a DBA starter.',
        when: "step.action == 'service.resize' && target.environment == 'PROD' && int(step.with.cpu_millis) > 4000",
        unless: "'dba' in starter.groups",
        at: 'steps',
        calendar: null,
      },
      expect.objectContaining({ name: 'prod-needs-two', effect: 'require-approval', at: 'steps' }),
      expect.objectContaining({
        name: 'prod-changes-in-business-hours',
        calendar: 'business-hours',
        at: 'steps',
      }),
      expect.objectContaining({ name: 'freeze', calendar: 'year-end-freeze' }),
      expect.objectContaining({ name: 'warn-dev-delete', effect: 'warn' }),
    ]);
    expect(hasStepRules(governance)).toBe(true);
    expect(hasStartRules(governance)).toBe(false);
  });

  it('an empty or absent section has no rules at all', () => {
    for (const section of [undefined, {}, { policies: [] }]) {
      const empty = compile(section);
      expect(hasStepRules(empty)).toBe(false);
      expect(hasStartRules(empty)).toBe(false);
    }
  });

  it('names an unknown calendar and lists the defined ones', () => {
    const section = parseYaml(SECTION) as { policies: Array<Record<string, unknown>> };
    section.policies[2] = { ...section.policies[2], calendar: 'bussiness-hours' };
    expect(problemsOf(section)).toEqual([
      'policies[2].calendar: `bussiness-hours` is not a calendar; calendars: business-hours, year-end-freeze',
    ]);
  });

  it('refuses a duplicate name, naming the first', () => {
    const rule = { name: 'same', when: 'true', effect: 'warn' };
    expect(problemsOf({ policies: [rule, { ...rule }] })).toEqual([
      'policies[1].name: `same` is already the name of policies[0]; names must be unique',
    ]);
  });

  it('reports CEL that does not parse, with the rule and field', () => {
    const [problem, ...rest] = problemsOf({
      policies: [{ name: 'r', when: "target.environment == 'PROD", effect: 'deny' }],
    });
    expect(rest).toEqual([]);
    expect(problem).toMatch(/^policies\[0\]\.when: cannot parse `target\.environment == 'PROD`: /);
  });

  it('reports a type error found before any run: a number field compared with text', () => {
    expect(
      problemsOf({ policies: [{ name: 'r', when: "target.cpu_millis > 'a'", effect: 'deny' }] }),
    ).toEqual(["policies[0].when: `target.cpu_millis > 'a'`: no such overload: int > string"]);
  });

  it('reports a field the context does not have, and a condition that is not a boolean', () => {
    expect(
      problemsOf({
        policies: [
          { name: 'a', when: "target.env == 'PROD'", effect: 'deny' },
          { name: 'b', when: 'target.environment', effect: 'deny' },
          { name: 'c', when: 'true', unless: 'starter.verified + 1 > 0', effect: 'deny' },
        ],
      }),
    ).toEqual([
      'policies[0].when: `target.env`: No such key: env',
      'policies[1].when: `target.environment` gives string, but a condition must be true or false',
      'policies[2].unless: `starter.verified + 1`: no such overload: bool + int',
    ]);
  });

  it('accepts what the context offers: macros, has(), null checks, type names and timestamps', () => {
    const conditions = [
      "starter.groups.exists(g, g == 'dba') && starter.verified",
      'has(step.with.cpu_millis) && step.with.cpu_millis > 4000',
      'target != null && target.name == null && target.memory_gbs >= 8',
      'type(inputs.size) == string',
      "now.getHours('Europe/Berlin') < 9 || now > timestamp('2030-01-01T00:00:00Z')",
      "runbook.name.startsWith('provision-') && runbook.hash != ''",
    ];
    const policies = conditions.map((when, index) => ({
      name: `r${index}`,
      when,
      effect: 'warn',
      at: 'steps',
    }));
    expect(problemsOf({ policies })).toEqual([]);
  });

  it('reports an unknown variable with the closest known one', () => {
    expect(
      problemsOf({ policies: [{ name: 'r', when: "targt.environment == 'PROD'", effect: 'deny' }] }),
    ).toEqual([
      "policies[0].when: `targt.environment == 'PROD'`: unknown variable `targt` (did you mean `target`?)",
    ]);
  });

  it('refuses structural mistakes with their paths', () => {
    expect(
      problemsOf({
        policies: [
          { name: 'Bad_Name', when: 'true', effect: 'warn' },
          {
            name: 'b',
            when: 'true',
            effect: 'require-approval',
            approvals: { group: 'group:dba', count: 2 },
          },
          { name: 'c', when: 'true', effect: 'require-approval' },
          { name: 'd', when: 'true', effect: 'forbid' },
          { name: 'e', when: 'true', effect: 'deny', calendar: 'x' },
        ],
      }),
    ).toEqual([
      'policies[0].name: must be lowercase letters, digits and -, starting with a letter (at most 63)',
      'policies[1].approvals.group: write the group name without `group:` (e.g. dba)',
      'policies[2].approvals: is missing (object expected)',
      'policies[3].effect: must be one of deny, warn, require-approval, window',
      'policies[4]: unknown field `calendar`',
    ]);
  });

  it('refuses a run-start rule that reads the step', () => {
    expect(
      problemsOf({ policies: [{ name: 'r', when: "step.action == 'x'", effect: 'deny', at: 'start' }] }),
    ).toEqual([
      'policies[0].at: a rule evaluated at run start reads step and target as null; use steps or both',
    ]);
  });

  it('reports calendar problems with the calendar path', () => {
    expect(
      problemsOf({
        calendars: {
          c: { kind: 'window', timezone: 'UTC', rrule: ['FREQ=DAILY;BYHOUR=24'], duration: '1h' },
        },
      }),
    ).toEqual(['calendars.c.rrule[0]: BYHOUR must be 0…23, got 24']);
  });
});
