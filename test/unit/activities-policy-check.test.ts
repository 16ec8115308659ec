// The `policy.check` local activity (activities/policy-check.ts): the worker reads the service a
// step changes (from the `project_id`/`service_id` of its `with`) and evaluates its rules over it,
// the step and the verified starter; against a fake Cloud API answering `service.get`.
import { CloudApiError } from '../../cloud/errors';
import type { CloudCaller, CloudClientResolver } from '../../activities/deps';
import { createCheckStepPolicyActivity } from '../../activities/policy-check';
import type { VerifiedStarter } from '../../contract/admission-messages';
import type { CheckStepPolicyInput, StepPolicyVerdict } from '../../contract/policy-messages';
import { compile as governance } from '../helpers/policy-fixtures';

interface Seen {
  projectId: string | undefined;
  action: string;
  input: unknown;
}

/** Services by id; an id not listed cannot be read (the call fails). */
function fakeCloud(services: Record<string, { environment: string; cpu_millis: number }>) {
  const seen: Seen[] = [];
  const clients: CloudClientResolver = {
    forProject: (projectId) => ({
      call: (async (action: string, input: { service_id: string }) => {
        seen.push({ projectId, action, input });
        if (action !== 'service.get') throw new Error(`unexpected ${action}`);
        const service = services[input.service_id];
        if (input.service_id === 'broken') throw new Error('connection reset');
        if (service === undefined)
          throw new CloudApiError({ code: 'CLOUD_API_NOT_FOUND', message: 'service not found', status: 404 });
        return {
          service_id: input.service_id,
          name: `svc-${input.service_id}`,
          status: 'READY',
          region_code: 'eu-central-1',
          metadata: { environment: service.environment },
          resources: [
            { id: 'r1', spec: { cpu_millis: service.cpu_millis, memory_gbs: service.cpu_millis / 250 } },
          ],
        };
      }) as CloudCaller['call'],
    }),
  };
  return { clients, seen };
}

const rules = governance({
  calendars: {
    'year-end': {
      kind: 'freeze',
      timezone: 'UTC',
      from: '2030-12-20T00:00:00Z',
      until: '2031-01-04T00:00:00Z',
    },
  },
  policies: [
    {
      name: 'prod-resize-needs-dba',
      when: "step.action == 'service.resize' && target.environment == 'PROD' && int(step.with.cpu_millis) > 4000",
      unless: "'dba' in starter.groups",
      effect: 'deny',
      message: 'Only group:dba may resize a PROD service above 4 CPUs.',
    },
    {
      name: 'prod-deletes-need-two',
      when: "step.action == 'service.delete' && target.environment == 'PROD'",
      effect: 'require-approval',
      approvals: { group: 'dba', count: 2 },
    },
    {
      name: 'year-end-freeze',
      when: "target.environment == 'PROD'",
      effect: 'window',
      calendar: 'year-end',
      outside: 'wait',
      override: { group: 'dba', count: 2 },
    },
    {
      name: 'unknown-target',
      when: "target != null && target.environment == null && target.cpu_millis == null && target.id == 'gone'",
      effect: 'warn',
      message: 'the target could not be read',
    },
  ],
});

const JUNE = Date.parse('2030-06-03T10:00:00Z');
const CHRISTMAS = Date.parse('2030-12-25T10:00:00Z');
const bob: VerifiedStarter = { by: 'bob', verified: true, groups: ['dev'] };
const alice: VerifiedStarter = { by: 'alice', verified: true, groups: ['dba'] };

function step(overrides: Partial<CheckStepPolicyInput> = {}): CheckStepPolicyInput {
  return {
    runbook: 'resize-with-rollback',
    definitionHash: 'a'.repeat(64),
    starter: bob,
    inputs: {},
    stepKey: 'resize',
    action: 'service.resize',
    with: { project_id: 'p1', service_id: 'prod1', cpu_millis: '8000', memory_gbs: '32' },
    ...overrides,
  };
}

const services = {
  prod1: { environment: 'PROD', cpu_millis: 2000 },
  dev1: { environment: 'DEV', cpu_millis: 2000 },
};
const check = (input: CheckStepPolicyInput, now = JUNE) => {
  const cloud = fakeCloud(services);
  const activity = createCheckStepPolicyActivity(rules, cloud.clients, { now: () => now });
  return { verdict: activity(input), seen: cloud.seen };
};

const rulesOf = (verdict: StepPolicyVerdict) => verdict.records.map((record) => record.rule);

describe('policy.check', () => {
  test('a resize of a PROD service above 4000 CPUs is denied for a starter outside dba', async () => {
    const verdict = await check(step()).verdict;
    expect(verdict).toMatchObject({ denied: true, refusedByWindow: false, waitUntil: null, approvals: [] });
    expect(verdict.records).toEqual([
      {
        rule: 'prod-resize-needs-dba',
        effect: 'deny',
        message: 'Only group:dba may resize a PROD service above 4 CPUs.',
        stepKey: 'resize',
        at: JUNE,
      },
      // Every rule that applies is recorded, an open window too.
      expect.objectContaining({ rule: 'year-end-freeze', effect: 'window', open: true }),
    ]);
  });

  test('the same resize by a dba starter is not denied; nor is one to 4000 CPUs', async () => {
    const byDba = await check(step({ starter: alice })).verdict;
    expect(byDba.denied).toBe(false);
    expect(rulesOf(byDba)).toEqual(['year-end-freeze']);
    const small = await check(
      step({ with: { project_id: 'p1', service_id: 'prod1', cpu_millis: '4000', memory_gbs: '16' } }),
    ).verdict;
    expect(small.denied).toBe(false);
    expect(rulesOf(small)).toEqual(['year-end-freeze']);
  });

  test('the target is the service the step names, read from its project with service.get', async () => {
    const { verdict, seen } = check(
      step({ with: { project_id: 'p9', service_id: 'dev1', cpu_millis: '8000' } }),
    );
    expect(await verdict).toMatchObject({ denied: false, records: [] });
    expect(seen).toEqual([
      { projectId: 'p9', action: 'service.get', input: { project_id: 'p9', service_id: 'dev1' } },
    ]);
  });

  test('a step that names no service reads nothing', async () => {
    const { verdict, seen } = check(step({ action: 'vpc.create', with: { project_id: 'p1', name: 'v' } }));
    expect((await verdict).denied).toBe(false);
    expect(seen).toEqual([]);
  });

  test('a service that does not exist has no target: rules that read it apply (fail closed)', async () => {
    const { verdict, seen } = check(
      step({ with: { project_id: 'p1', service_id: 'gone', cpu_millis: '8000' } }),
    );
    const result = await verdict;
    expect(seen).toHaveLength(1);
    expect(result.denied).toBe(true);
    expect(result.records.find((record) => record.effect === 'deny')?.message).toContain(
      'could not be evaluated',
    );
  });

  test('a service that cannot be read now fails the check (retried), never lets the step go unchecked', async () => {
    await expect(
      check(step({ with: { project_id: 'p1', service_id: 'broken', cpu_millis: '8000' } })).verdict,
    ).rejects.toThrow('connection reset');
  });

  test('a require-approval rule asks for approvals of its group', async () => {
    const verdict = await check(
      step({ stepKey: 'drop', action: 'service.delete', with: { project_id: 'p1', service_id: 'prod1' } }),
    ).verdict;
    expect(verdict.denied).toBe(false);
    expect(verdict.approvals).toEqual([
      { rule: 'prod-deletes-need-two', group: 'dba', count: 2, override: false },
    ]);
    expect(verdict.records).toEqual([
      expect.objectContaining({
        rule: 'prod-deletes-need-two',
        effect: 'require-approval',
        group: 'dba',
        count: 2,
        stepKey: 'drop',
      }),
      expect.objectContaining({ rule: 'year-end-freeze', open: true }),
    ]);
  });

  test('a closed freeze with an override asks for the override approvals and says until when', async () => {
    const verdict = await check(step({ starter: alice }), CHRISTMAS).verdict;
    const opens = Date.parse('2031-01-04T00:00:00Z');
    expect(verdict).toMatchObject({ denied: false, refusedByWindow: false, waitUntil: opens });
    expect(verdict.approvals).toEqual([{ rule: 'year-end-freeze', group: 'dba', count: 2, override: true }]);
    expect(verdict.records).toEqual([
      expect.objectContaining({
        rule: 'year-end-freeze',
        effect: 'window',
        calendar: 'year-end',
        open: false,
        opensAt: opens,
        outside: 'wait',
        group: 'dba',
        count: 2,
        at: CHRISTMAS,
      }),
    ]);
    // Outside the freeze the window rule is open: no override is asked for.
    const june = await check(step({ starter: alice })).verdict;
    expect(june.approvals).toEqual([]);
  });

  test('without governance nothing is read and nothing applies', async () => {
    const cloud = fakeCloud(services);
    const activity = createCheckStepPolicyActivity(undefined, cloud.clients, { now: () => JUNE });
    expect(await activity(step())).toMatchObject({
      records: [],
      denied: false,
      refusedByWindow: false,
      waitUntil: null,
      approvals: [],
    });
    expect(cloud.seen).toEqual([]);
  });
});
