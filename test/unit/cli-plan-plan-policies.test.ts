// `tideline plan` and the worker's policies: the rules evaluated by the worker's own engine over
// the context a run started now would give them (the claimed starter, the plan's inputs, each
// changing step's resolved `with`, the target read through a stand-in reader), and how the plan
// prints them: the deny that would fail the step, a freeze with its opening time, fail-closed
// rules where the plan cannot know the target, nothing for a DEV service.
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { renderPlanText } from '../../cli/output/plan-text';
import { PLAIN_STYLE } from '../../cli/output/style';
import { buildPlan, type Plan } from '../../cli/plan/build-plan';
import {
  planPolicies,
  policyInputs,
  type PlanPolicies,
  type PolicyTargetRead,
} from '../../cli/plan/plan-policies';
import type { JsonValue } from '../../dsl/expressions';
import { loadRunbookFile, loadRunbookText } from '../../dsl/loader';
import type { RunbookDefinition } from '../../dsl/definition';
import { compile } from '../helpers/policy-fixtures';
import { REPO_ROOT } from '../helpers/worker-process';

const NOW = Date.parse('2026-03-02T10:00:00Z');

const governance = compile(
  parseYaml(`
calendars:
  release-freeze:
    kind: freeze
    timezone: Europe/Berlin
    from: '2026-03-01T00:00:00Z'
    until: '2026-03-05T17:00:00Z'
policies:
  - name: unsigned-start
    when: '!starter.verified'
    effect: warn
    message: The start is not signed.
  - name: prod-resize-needs-dba
    when: "step.action == 'service.resize' && target.environment == 'PROD' && int(step.with.cpu_millis) > 4000"
    unless: "'dba' in starter.groups"
    effect: deny
    message: Only group:dba may resize a PROD service above 4 CPUs.
  - name: prod-freeze
    when: "target.environment == 'PROD'"
    effect: window
    calendar: release-freeze
    outside: wait
    override: { group: dba, count: 2 }
  - name: secrets-stay-secret
    when: "(has(step.with.password) && step.with.password != '(secret)') || (has(inputs.pw) && inputs.pw != '(secret)')"
    effect: deny
`),
);

const SERVICES: Record<string, PolicyTargetRead> = {
  'svc-prod': {
    ok: true,
    service: {
      type: 'service',
      id: 'svc-prod',
      name: 'orders',
      environment: 'PROD',
      status: 'READY',
      region: 'us-east-1',
      cpu_millis: 2000,
      memory_gbs: 8,
    },
  },
  'svc-dev': {
    ok: true,
    service: {
      type: 'service',
      id: 'svc-dev',
      name: 'scratch',
      environment: 'DEV',
      status: 'READY',
      region: 'us-east-1',
      cpu_millis: 1000,
      memory_gbs: 4,
    },
  },
};

const RESIZE = loadRunbookFile(path.join(REPO_ROOT, 'runbooks', 'resize-with-rollback.yaml'));

async function planWithPolicies(
  definition: RunbookDefinition,
  bound: Record<string, JsonValue>,
): Promise<{ plan: Plan; policies: PlanPolicies; reads: string[] }> {
  const reads: string[] = [];
  const plan = buildPlan(definition, 'runbook.yaml', bound, new Set(), new Set(Object.keys(bound)));
  const policies = await planPolicies(plan, {
    governance,
    configFile: '/etc/tideline/worker.yaml',
    definition,
    inputs: policyInputs(definition, bound, new Set()),
    starterName: 'alice',
    now: NOW,
    readTarget: (projectId, serviceId) => {
      reads.push(`${projectId}/${serviceId}`);
      return Promise.resolve(
        SERVICES[serviceId] ?? { ok: false, reason: 'service.get failed: not found (404)', sent: true },
      );
    },
  });
  plan.policies = policies;
  return { plan, policies, reads };
}

const resizeInputs = (serviceId: string) => ({
  project_id: 'p1',
  service_id: serviceId,
  cpu_millis: '8000',
  deadline: 1_200_000,
});

describe('a PROD service in a freeze, resized above 4 CPUs by a starter as claimed', () => {
  let result: Awaited<ReturnType<typeof planWithPolicies>>;
  beforeAll(async () => {
    result = await planWithPolicies(RESIZE, resizeInputs('svc-prod'));
  });

  test('the start: the unsigned warning; the starter is the claimed name, unverified, in no group', () => {
    const { policies } = result;
    expect(policies).toMatchObject({
      configFile: '/etc/tideline/worker.yaml',
      evaluatedAt: '2026-03-02T10:00:00.000Z',
      rules: 4,
      starter: { name: 'alice', verified: false, groups: [] },
      start: {
        decisions: [{ rule: 'unsigned-start', effect: 'warn', message: 'The start is not signed.' }],
        outcome: 'proceeds',
        waitUntil: null,
      },
    });
  });

  test('the resize is denied and frozen; its undo too, the deny because its size is known only at run time', () => {
    const { policies, reads } = result;
    // Only the changing calls: not the service.get read, nor the waits.
    expect(policies.steps.map((step) => [step.key, step.action])).toEqual([
      ['resize', 'service.resize'],
      ['resize/undo.resize_back', 'service.resize'],
    ]);
    const [resize, back] = policies.steps;
    expect(resize).toMatchObject({
      target: { source: 'read', service: { id: 'svc-prod', environment: 'PROD' } },
      runTimeWith: [],
      outcome: 'denied',
      waitUntil: null,
    });
    expect(resize?.decisions).toEqual([
      {
        rule: 'prod-resize-needs-dba',
        effect: 'deny',
        message: 'Only group:dba may resize a PROD service above 4 CPUs.',
      },
      {
        rule: 'prod-freeze',
        effect: 'window',
        calendar: 'release-freeze',
        calendarKind: 'freeze',
        timezone: 'Europe/Berlin',
        open: false,
        outside: 'wait',
        opensAt: '2026-03-05T17:00:00.000Z',
        opensAtLocal: '2026-03-05T18:00+01:00',
        closesAt: null,
        override: { group: 'dba', count: 2 },
        message:
          'freeze release-freeze is in force until 2026-03-05T18:00+01:00 (Europe/Berlin): the change waits (unless 2 approvals from group:dba let it through)',
      },
    ]);
    expect(back?.runTimeWith).toEqual(['cpu_millis', 'memory_gbs']);
    expect(back?.decisions.map((decision) => [decision.rule, decision.failClosed !== undefined])).toEqual([
      ['prod-resize-needs-dba', true],
      ['prod-freeze', false],
    ]);
    // One read of the service for both steps.
    expect(reads).toEqual(['p1/svc-prod']);
    expect(policies.reads).toBe(1);
  });

  test('the text: the policies before the steps, and under the resize the deny, the freeze and its opening', () => {
    const text = renderPlanText(result.plan, PLAIN_STYLE);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Plan for resize-with-rollback (runbook.yaml) — only service.get was called');
    const start = lines.indexOf(
      "policies (the worker's 4 rules from /etc/tideline/worker.yaml, evaluated at 2026-03-02T10:00:00.000Z):",
    );
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start + 1, start + 5)).toEqual([
      '  starter: alice, as claimed — the plan verifies no key, so the rules see an unverified starter in no group',
      '  at the start:',
      '    warn unsigned-start: The start is not signed. (only recorded)',
      '',
    ]);
    const resize = lines.findIndex((line) => line.startsWith('  4. resize'));
    const policyLine = lines.findIndex((line, index) => index > resize && line.includes('policies ('));
    expect(lines.slice(policyLine, policyLine + 5)).toEqual([
      '       policies (target svc-prod "orders" (PROD, READY, 2000 mCPU), read now):',
      '         deny prod-resize-needs-dba: Only group:dba may resize a PROD service above 4 CPUs.',
      '         window prod-freeze: freeze release-freeze is in force until 2026-03-05T18:00+01:00 (Europe/Berlin): the change waits (unless 2 approvals from group:dba let it through)',
      '           freeze release-freeze: closed, opens 2026-03-05T17:00:00.000Z (2026-03-05T18:00+01:00 Europe/Berlin); the change waits until then, unless 2 signed approvals from group:dba let it through',
      '         → the run would fail here (POLICY_DENIED)',
    ]);
    expect(text).toContain(
      '           policies (target svc-prod "orders" (PROD, READY, 2000 mCPU), read now; cpu_millis, memory_gbs known only at run time: the rules see them as written):',
    );
  });
});

test('a DEV service: no step rule applies, and the plan says so', async () => {
  const { policies, plan } = await planWithPolicies(RESIZE, resizeInputs('svc-dev'));
  expect(policies.steps.map((step) => [step.key, step.decisions, step.outcome])).toEqual([
    ['resize', [], 'proceeds'],
    ['resize/undo.resize_back', [], 'proceeds'],
  ]);
  const text = renderPlanText(plan, PLAIN_STYLE);
  expect(text).toContain(
    '       policies: no rule applies (target svc-dev "scratch" (DEV, READY, 1000 mCPU), read now)',
  );
  expect(text).not.toMatch(/deny|prod-freeze|POLICY_DENIED/);
});

test('a target that cannot be read is null: rules reading it apply (fail closed), and the plan says why', async () => {
  const { policies, plan } = await planWithPolicies(RESIZE, resizeInputs('svc-gone'));
  const [resize] = policies.steps;
  expect(resize?.target).toEqual({
    source: 'unreadable',
    id: 'svc-gone',
    reason: 'service.get failed: not found (404)',
  });
  expect(resize?.outcome).toBe('denied');
  expect(resize?.decisions.map((decision) => [decision.rule, decision.failClosed])).toEqual([
    ['prod-resize-needs-dba', expect.stringContaining('`when` could not be evaluated')],
    ['prod-freeze', expect.stringContaining('`when` could not be evaluated')],
  ]);
  expect(renderPlanText(plan, PLAIN_STYLE)).toContain(
    'policies (target svc-gone could not be read (service.get failed: not found (404)): the rules see a null target, so a rule reading it applies (fail closed)):',
  );
});

const FLEET = loadRunbookText(
  `
apiVersion: tideline/v1
name: fleet
description: A create, a password change and a loop, for plan policies.
inputs:
  project_id: { type: string }
  services: { type: list, default: [] }
  pw: { type: string, secret: true }
steps:
  - id: create
    call: service.create
    with: { project_id: '\${{ inputs.project_id }}', name: fresh }
  - id: password
    call: service.updatePassword
    with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ steps.create.output.service_id }}', password: '\${{ inputs.pw }}' }
  - id: each
    foreach: '\${{ inputs.services }}'
    steps:
      - id: stop
        call: service.stop
        with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ item }}' }
`,
  'fleet.yaml',
);

test('a create names no service; a loop item is known only at run time; secret fields are masked', async () => {
  const { policies, reads, plan } = await planWithPolicies(FLEET, {
    project_id: 'p1',
    services: ['a'],
    pw: 'hunter2',
  });
  expect(policies.steps.map((step) => [step.key, step.target.source])).toEqual([
    ['create', 'none'],
    ['password', 'run-time'],
    ['each[*].stop', 'run-time'],
  ]);
  // With no target, the rule reading it applies (fail closed), in the run as in the plan.
  expect(policies.steps[0]?.decisions.map((decision) => decision.rule)).toEqual(['prod-freeze']);
  expect(policies.steps[0]?.decisions[0]?.failClosed).toMatch(/`when` could not be evaluated/);
  // The rule comparing the password (field and input) sees it masked, as the worker shows it.
  expect(policies.steps[1]?.decisions.map((decision) => decision.rule)).toEqual(['prod-freeze']);
  expect(reads).toEqual([]);
  expect(policies.reads).toBe(0);
  const text = renderPlanText(plan, PLAIN_STYLE);
  expect(text.split('\n')[0]).toBe('Plan for fleet (runbook.yaml) — nothing is called');
  expect(text).toContain('policies (the step names no service: its target is null, in the run too):');
  expect(text).toContain(
    'policies (its service is known only at run time: the rules see a null target, so a rule reading it applies (fail closed)):',
  );
});

test('a plan without policies prints nothing about them', () => {
  const plan = buildPlan(RESIZE, 'runbook.yaml', resizeInputs('svc-prod'), new Set(), new Set());
  const text = renderPlanText(plan, PLAIN_STYLE);
  expect(text).not.toContain('policies');
  expect(text.split('\n')[0]).toBe('Plan for resize-with-rollback (runbook.yaml) — nothing is called');
  expect(JSON.parse(JSON.stringify(plan))).not.toHaveProperty('policies');
});
