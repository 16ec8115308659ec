// A governance section like the documented example, and the context a step of a resize run
// gives its rules, for the policy tests.
import { parse as parseYaml } from 'yaml';
import type { CompiledGovernance } from '../../dsl/policies';
import { compileGovernance } from '../../dsl/policies';
import type { PolicyContext } from '../../dsl/policy-schema';
import { PolicyContextSchema } from '../../dsl/policy-schema';

export const SECTION = `
calendars:
  business-hours:
    kind: window
    timezone: Europe/Berlin
    rrule: ["FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0"]
    duration: 8h
  year-end-freeze:
    kind: freeze
    timezone: UTC
    rrule: ["FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=20;BYHOUR=0;BYMINUTE=0;BYSECOND=0"]
    duration: 14d
policies:
  - name: prod-resize-needs-dba
    description: Resizing a PROD service above 4 CPUs needs a DBA starter.
    when: "step.action == 'service.resize' && target.environment == 'PROD' && int(step.with.cpu_millis) > 4000"
    effect: deny
    unless: "'dba' in starter.groups"
    message: Only group:dba may resize PROD above 4 CPUs.
  - name: prod-needs-two
    when: "target.environment == 'PROD'"
    effect: require-approval
    approvals: { group: dba, count: 2 }
  - name: prod-changes-in-business-hours
    when: "target.environment == 'PROD'"
    effect: window
    calendar: business-hours
    outside: wait
  - name: freeze
    when: "target.environment == 'PROD'"
    effect: window
    calendar: year-end-freeze
    outside: wait
    override: { group: dba, count: 2 }
  - name: warn-dev-delete
    when: "step.action == 'service.delete'"
    effect: warn
`;

export function compile(section: unknown): CompiledGovernance {
  const compiled = compileGovernance(section);
  if (!compiled.ok) throw new Error(compiled.problems.join('\n'));
  return compiled.governance;
}

export function problemsOf(section: unknown): string[] {
  const compiled = compileGovernance(section);
  return compiled.ok ? [] : compiled.problems;
}

/** The documented example, compiled. */
export const governance = compile(parseYaml(SECTION));

export const PROD_SERVICE = {
  type: 'service',
  id: 'svc1',
  name: 'orders',
  environment: 'PROD',
  status: 'READY',
  region: 'eu-central-1',
  cpu_millis: 2000,
  memory_gbs: 8,
};

export function context(overrides: Partial<PolicyContext> = {}): PolicyContext {
  return PolicyContextSchema.parse({
    runbook: { name: 'resize', hash: 'abc' },
    starter: { name: 'bob', verified: true, groups: ['dev'] },
    inputs: { cpu_millis: 8000 },
    step: { key: 'resize', action: 'service.resize', with: { service_id: 'svc1', cpu_millis: 8000 } },
    target: PROD_SERVICE,
    ...overrides,
  });
}

export const ms = (iso: string) => Date.parse(iso);
/** Tuesday 4 November 2025, 11:00 CET: inside business hours, outside the freeze. */
export const TUESDAY_MORNING = ms('2025-11-04T10:00:00Z');
