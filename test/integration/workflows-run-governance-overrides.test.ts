// Approvals a policy asks for: a freeze in force with an override lets a PROD change through only
// with a signed approval of the override's group (the approvers are shown the one change it
// guards), and a require-approval rule holds a PROD delete until its group has signed. The run's
// starter cannot be one of them; the decisions are signed like any approval's.
import { keyPairsFor, signedStartInput } from '../helpers/people-keys';
import path from 'node:path';
import { publicKeyText } from '../../activities/approval-keys';
import { signDecision } from '../../activities/approval-signatures';
import type { ApprovalDecision } from '../../contract/run-messages';
import { loadRunbookFile } from '../../dsl/loader';
import { compile } from '../helpers/policy-fixtures';
import { decide, idOf, reportOf, seedService, waitForApproval } from '../helpers/runbook-fixtures';
import { RUNBOOKS_DIR, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { testKeyRing } from '../helpers/worker-process';

const people = ['alice', 'dave'] as const;
type Person = (typeof people)[number];
const keys = keyPairsFor(people);

describe('approvals the worker’s policies ask for', () => {
  let stack: RunbookStack;

  beforeAll(async () => {
    const governance = compile({
      calendars: {
        freeze: {
          kind: 'freeze',
          timezone: 'UTC',
          from: new Date(Date.now() - 3_600_000).toISOString(),
          until: new Date(Date.now() + 365 * 86_400_000).toISOString(),
        },
      },
      policies: [
        {
          name: 'prod-freeze',
          when: "step.action == 'service.updatePassword' && target.environment == 'PROD'",
          effect: 'window',
          calendar: 'freeze',
          outside: 'wait',
          override: { group: 'dba', count: 1 },
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
          groups: new Map([['dba', ['alice', 'dave']]]),
        },
      },
    );
  }, 60_000);
  afterAll(async () => stack?.close());

  test('a freeze is overridden only by a signed approval of its group, never the starter’s', async () => {
    const service = await seedService(stack, { name: 'frozen', environment: 'PROD' });
    const workflowId = `override-${Date.now()}`;
    const rotate = loadRunbookFile(path.join(RUNBOOKS_DIR, 'rotate-password.yaml'));
    const inputs = {
      project_id: stack.projectId,
      service_id: idOf(service),
      new_password: 'a-new-password-1234',
    };
    const handle = await stack.client.workflow.start('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [
        signedStartInput(keys.dave.privateKey, {
          workflowId,
          taskQueue: stack.taskQueue,
          by: 'dave',
          definition: rotate,
          inputs,
        }),
      ],
    });
    const pending = await waitForApproval(handle);
    expect(pending).toMatchObject({
      stepKey: 'rotate.policy.prod-freeze',
      approvers: ['group:dba'],
      minApprovals: 1,
      allowSelfApproval: false,
    });
    // The approval guards the one change, with the new password masked.
    expect(pending.plan?.changes).toEqual([
      {
        stepKey: 'rotate',
        action: 'service.updatePassword',
        with: { project_id: stack.projectId, service_id: idOf(service), password: '(secret)' },
      },
    ]);
    const runId = (await handle.describe()).runId;
    const signed = (who: Person): ApprovalDecision => ({
      approved: true,
      step: pending.stepKey,
      by: who,
      signature: signDecision(keys[who].privateKey, {
        workflowId,
        runId,
        stepKey: pending.stepKey,
        approved: true,
        by: who,
        ...(pending.plan !== undefined && { plan: pending.plan }),
      }),
    });
    expect((await decide(handle, signed('dave'))).refused?.code).toBe('APPROVAL_SELF');
    expect((await decide(handle, signed('alice'))).refused).toBeUndefined();
    const report = await reportOf(handle);
    expect(report.status).toBe('succeeded');
    expect(report.windowWait).toBeUndefined();
    const freeze = report.policies?.find((record) => record.rule === 'prod-freeze');
    expect(freeze).toMatchObject({ effect: 'window', open: false, group: 'dba', count: 1 });
    expect(report.approvals?.map((entry) => [entry.by, entry.accepted])).toEqual([
      ['dave', false],
      ['alice', true],
    ]);
  });
});
