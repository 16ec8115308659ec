// The worker's policies and change windows on a real dev server and the local cloud: a rule
// "resizing a PROD service above 4 CPUs needs a group:dba starter" refuses bob and lets alice
// through, and a freeze in force makes a run that changes a PROD service wait on a named timer
// while the same runbook on a DEV service goes through. The rules are the worker's; the runs are
// raw starts (signed by their starters) as any client could send them.
import { keyPairsFor, signedStartInput } from '../helpers/people-keys';
import path from 'node:path';
import { publicKeyText } from '../../activities/approval-keys';
import { progressQuery } from '../../contract/run-messages';
import { loadRunbookFile } from '../../dsl/loader';
import { compile } from '../helpers/policy-fixtures';
import { getService, idOf, pollUntil, reportOf, seedService } from '../helpers/runbook-fixtures';
import { RUNBOOKS_DIR, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { testKeyRing } from '../helpers/worker-process';

const people = ['alice', 'bob'] as const;
type Person = (typeof people)[number];
const keys = keyPairsFor(people);
const YEAR_MS = 365 * 86_400_000;

describe('policies and change windows the worker enforces', () => {
  let stack: RunbookStack;

  beforeAll(async () => {
    const governance = compile({
      calendars: {
        'rotation-freeze': {
          kind: 'freeze',
          timezone: 'UTC',
          from: new Date(Date.now() - 3_600_000).toISOString(),
          until: new Date(Date.now() + YEAR_MS).toISOString(),
        },
      },
      policies: [
        {
          name: 'prod-resize-needs-dba',
          when: "step.action == 'service.resize' && target.environment == 'PROD' && int(step.with.cpu_millis) > 4000",
          unless: "'dba' in starter.groups",
          effect: 'deny',
          message: 'only group:dba may resize a PROD service above 4 CPUs',
        },
        {
          name: 'no-prod-rotation-in-freeze',
          when: "runbook.name == 'rotate-password' && step.action == 'service.updatePassword' && target.environment == 'PROD'",
          effect: 'window',
          calendar: 'rotation-freeze',
          outside: 'wait',
        },
      ],
    });
    stack = await startRunbookStack(
      { timeScale: 0.05 },
      {
        keyRing: testKeyRing,
        governance: governance,
        approvals: {
          keys: new Map(people.map((name) => [name, [publicKeyText(keys[name].publicKey)]])),
          groups: new Map([['dba', ['alice']]]),
        },
      },
    );
  }, 60_000);
  afterAll(async () => stack?.close());

  const start = (file: string, who: Person, inputs: Record<string, unknown>) => {
    const workflowId = `${path.basename(file, '.yaml')}-${who}-${Date.now()}`;
    const definition = loadRunbookFile(path.join(RUNBOOKS_DIR, file));
    const input = signedStartInput(keys[who].privateKey, {
      workflowId,
      taskQueue: stack.taskQueue,
      by: who,
      definition,
      inputs,
    });
    return stack.client.workflow.start('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [input],
    });
  };

  test('resizing a PROD service above 4 CPUs: bob is refused by the rule, alice (dba) goes through', async () => {
    const service = await seedService(stack, { name: 'sized', environment: 'PROD' });
    const inputs = { project_id: stack.projectId, service_id: idOf(service), cpu_millis: '8000' };
    const refused = await reportOf(await start('resize-with-rollback.yaml', 'bob', inputs));
    expect(refused.status).toBe('failed');
    expect(refused.failure).toMatchObject({ stepKey: 'resize', type: 'POLICY_DENIED' });
    expect(refused.failure?.message).toContain('prod-resize-needs-dba');
    expect(refused.policies?.map((p) => [p.rule, p.effect, p.stepKey])).toEqual([
      ['prod-resize-needs-dba', 'deny', 'resize'],
    ]);
    expect((await getService(stack, idOf(service))).resources?.[0]?.spec?.cpu_millis).toBe(1000);

    const allowed = await reportOf(await start('resize-with-rollback.yaml', 'alice', inputs));
    expect(allowed.status).toBe('succeeded');
    expect(allowed.admission?.starter).toMatchObject({ by: 'alice', verified: true, groups: ['dba'] });
    expect((await getService(stack, idOf(service))).resources?.[0]?.spec?.cpu_millis).toBe(8000);
  });

  test('a freeze in force makes the PROD run wait on a named timer; the DEV run proceeds', async () => {
    const prod = await seedService(stack, { name: 'frozen', environment: 'PROD' });
    const dev = await seedService(stack, { name: 'thawed', environment: 'DEV' });
    const rotate = (service: string) =>
      start('rotate-password.yaml', 'alice', {
        project_id: stack.projectId,
        service_id: service,
        new_password: 'a-new-password-1234',
      });
    const waiting = await rotate(idOf(prod));
    const devReport = await reportOf(await rotate(idOf(dev)));
    expect(devReport.status).toBe('succeeded');
    const progress = await pollUntil(
      'the PROD run to wait for its change window',
      () => waiting.query(progressQuery),
      (p) => p.windowWait !== undefined,
      30_000,
    );
    expect(progress.windowWait).toMatchObject({
      rule: 'no-prod-rotation-in-freeze',
      calendar: 'rotation-freeze',
    });
    expect(progress.windowWait?.until).toBeGreaterThan(Date.now() + YEAR_MS / 2);
    const history = await waiting.fetchHistory();
    const timer = history.events?.find((event) => event.timerStartedEventAttributes);
    expect(timer).toBeDefined();
    expect(progress.steps.find((s) => s.key === 'rotate')?.status).toBe('running');
    await waiting.terminate('test over');
  });
});
