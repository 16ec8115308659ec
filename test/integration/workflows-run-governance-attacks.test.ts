// The attacks on a production change, sent as an attacker who reaches the Temporal frontend would
// send them (raw workflow starts and updates, not our CLI), against a worker whose catalogue holds
// test/fixtures/approvals/promote-to-prod.yaml (2 of alice, bob, group:dba; no self-approval) and
// whose approvals section registers alice, bob, dave (dba) and mallory (a key, not an approver).
// Each is refused before the service changes, with its code, and kept in the run's record.
import { keyPairsFor } from '../helpers/people-keys';
import path from 'node:path';
import { publicKeyText } from '../../activities/approval-keys';
import {
  signDecision,
  signHoldAction,
  signScheduleStart,
  signStart,
} from '../../activities/approval-signatures';
import { definitionHash } from '../../activities/definition-hash';
import { holdActionChanges, type ApprovalPlan } from '../../contract/approval-messages';
import {
  retryUpdate,
  type ApprovalDecision,
  type RetryRequest,
  type RunbookWorkflowInput,
} from '../../contract/run-messages';
import type { RunbookDefinition } from '../../dsl/definition';
import { loadRunbookFile } from '../../dsl/loader';
import { loadCatalog } from '../../worker/catalog';
import {
  decide,
  getService,
  idOf,
  pollUntil,
  reportOf,
  seedService,
  waitForApproval,
} from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { testKeyRing } from '../helpers/worker-process';
import { progressQuery } from '../../contract/run-messages';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'approvals');
const FIXTURE = path.join(FIXTURES, 'promote-to-prod.yaml');
const people = ['alice', 'bob', 'dave', 'mallory'] as const;
type Person = (typeof people)[number];
const keys = keyPairsFor(people);

describe('a catalogue worker refuses the attacks on a production change', () => {
  let stack: RunbookStack;
  let definition: RunbookDefinition;

  beforeAll(async () => {
    const problems: string[] = [];
    const catalog = loadCatalog({ runbooks: ['promote-to-prod.yaml'] }, FIXTURES, problems);
    expect(problems).toEqual([]);
    stack = await startRunbookStack(
      { timeScale: 0.05 },
      {
        keyRing: testKeyRing,
        catalog,
        approvals: {
          keys: new Map(people.map((name) => [name, [publicKeyText(keys[name].publicKey)]])),
          groups: new Map([['dba', ['dave']]]),
        },
      },
    );
    definition = loadRunbookFile(FIXTURE);
  }, 60_000);
  afterAll(async () => stack?.close());

  const start = (workflowId: string, input: RunbookWorkflowInput) =>
    stack.client.workflow.start('runbookWorkflow', { taskQueue: stack.taskQueue, workflowId, args: [input] });

  const signed = (
    who: Person,
    ids: { workflowId: string; runId: string },
    plan: ApprovalPlan | undefined,
    approved = true,
  ): ApprovalDecision => ({
    approved,
    step: 'sign_off',
    by: who,
    signature: signDecision(keys[who].privateKey, {
      ...ids,
      stepKey: 'sign_off',
      approved,
      by: who,
      ...(plan !== undefined && { plan }),
    }),
  });

  test('a start claiming another starter (or none) cannot reach a step that refuses self-approval', async () => {
    const service = await seedService(stack, { name: 'claimed' });
    for (const startedBy of [{ by: 'not-dave' }, undefined]) {
      const workflowId = `claimed-${Date.now()}-${startedBy === undefined ? 'none' : 'named'}`;
      const handle = await start(workflowId, {
        definition,
        inputs: { project_id: stack.projectId, service_id: service.service_id },
        ...(startedBy !== undefined && { startedBy }),
      });
      const report = await reportOf(handle);
      expect(report.status).toBe('failed');
      expect(report.failure).toMatchObject({ stepKey: 'sign_off', type: 'APPROVAL_START_UNVERIFIED' });
      expect(report.admission).toMatchObject({ allowed: true, mode: 'catalog' });
      expect(report.admission?.starter.verified).toBe(false);
    }
    expect((await getService(stack, idOf(service))).metadata?.environment).not.toBe('PROD');
  });

  test('a definition with its approvers stripped, or the author as approver, is refused before any call', async () => {
    const service = await seedService(stack, { name: 'stripped' });
    const stripped: RunbookDefinition = {
      ...definition,
      formatVersion: 1,
      steps: definition.steps.filter((step) => step.kind !== 'approve'),
    };
    const authored: RunbookDefinition = {
      ...definition,
      steps: definition.steps.map((step) =>
        step.kind === 'approve' ? { ...step, approvers: ['mallory'], minApprovals: 1 } : step,
      ),
    };
    for (const [name, forged] of [
      ['stripped', stripped],
      ['authored', authored],
    ] as const) {
      const workflowId = `${name}-${Date.now()}`;
      const handle = await start(workflowId, {
        definition: forged,
        inputs: { project_id: stack.projectId, service_id: service.service_id },
        startedBy: signStart(keys.mallory.privateKey, workflowId, 'mallory'),
      });
      const report = await reportOf(handle);
      expect(report.status).toBe('failed');
      expect(report.failure).toMatchObject({ stepKey: '', type: 'RUNBOOK_NOT_ALLOWED' });
      expect(report.failure?.message).toContain('differs from the catalogue');
      expect(report.steps.every((step) => step.status === 'pending')).toBe(true);
      expect(report.admission).toMatchObject({ allowed: false, code: 'RUNBOOK_NOT_ALLOWED' });
      expect(report.admission?.starter).toMatchObject({ by: 'mallory', verified: true });
    }
    expect((await getService(stack, idOf(service))).metadata?.environment).not.toBe('PROD');
  });

  test('approvers sign the plan they were shown: a restart under the same id with another target asks again', async () => {
    const first = await seedService(stack, { name: 'bait' });
    const other = await seedService(stack, { name: 'switch' });
    const workflowId = `bait-${Date.now()}`;
    const begin = (serviceId: string) =>
      start(workflowId, {
        definition,
        inputs: { project_id: stack.projectId, service_id: serviceId },
        startedBy: signStart(keys.dave.privateKey, workflowId, 'dave'),
      });
    let handle = await begin(idOf(first));
    const shown = (await waitForApproval(handle)).plan;
    expect(shown?.changes[0]?.with.service_id).toBe(first.service_id);
    await handle.terminate('bait and switch');
    handle = await begin(idOf(other));
    const pending = await waitForApproval(handle);
    // What approvers are shown now names the other service, and signing the old plan does not count.
    expect(pending.plan?.changes[0]?.with.service_id).toBe(other.service_id);
    const runId = (await handle.describe()).runId;
    const outcome = await decide(handle, signed('alice', { workflowId, runId }, shown));
    expect(outcome.refused?.code).toBe('APPROVAL_BAD_SIGNATURE');
    expect(outcome.refused?.reason).toContain('the plan this step guards');
    await handle.terminate('done');
    expect((await getService(stack, idOf(other))).metadata?.environment).not.toBe('PROD');
  });

  test('a retry that retargets an approved change asks the approvers again; an unsigned retry is refused', async () => {
    const target = await seedService(stack, { name: 'retarget' });
    const workflowId = `retarget-${Date.now()}`;
    const handle = await start(workflowId, {
      definition,
      // A service that does not exist: promote fails and the run holds.
      inputs: { project_id: stack.projectId, service_id: 'zzzzzzzzzz' },
      onFailure: 'hold',
      startedBy: signStart(keys.dave.privateKey, workflowId, 'dave'),
    });
    const runId = (await handle.describe()).runId;
    const approvedPlan = (await waitForApproval(handle)).plan;
    for (const who of ['alice', 'bob'] as const)
      expect(
        (await decide(handle, signed(who, { workflowId, runId }, approvedPlan))).refused,
      ).toBeUndefined();
    await pollUntil(
      'the promote step to hold',
      () => handle.query(progressQuery),
      (p) => (p.held ?? []).length > 0,
      30_000,
    );

    const retarget: RetryRequest = {
      step: 'promote',
      by: 'mallory',
      inputs: { service_id: target.service_id },
    };
    const unsigned = await handle.executeUpdate(retryUpdate, { args: [retarget] });
    expect(unsigned.refused?.code).toBe('HOLD_UNSIGNED');
    const signedRetry: RetryRequest = {
      ...retarget,
      signature: signHoldAction(keys.mallory.privateKey, {
        workflowId,
        runId,
        action: 'retry',
        step: 'promote',
        by: 'mallory',
        changes: holdActionChanges('retry', retarget),
      }),
    };
    const accepted = await handle.executeUpdate(retryUpdate, { args: [signedRetry] });
    expect(accepted).toMatchObject({
      action: 'retry',
      by: 'mallory',
      verified: true,
      inputs: ['service_id'],
    });
    // The approval is asked again, for the new target, before promote runs.
    const again = await waitForApproval(handle);
    expect(again.plan?.changes[0]?.with.service_id).toBe(target.service_id);
    expect((await getService(stack, idOf(target))).metadata?.environment).not.toBe('PROD');
    const progress = await handle.query(progressQuery);
    expect(progress.actions?.map((a) => [a.action, a.by, a.refused?.code ?? 'ok'])).toEqual([
      ['retry', 'mallory', 'HOLD_UNSIGNED'],
      ['retry', 'mallory', 'ok'],
    ]);
    // With two fresh approvals of the new plan it goes through.
    for (const who of ['alice', 'bob'] as const)
      expect((await decide(handle, signed(who, { workflowId, runId }, again.plan))).refused).toBeUndefined();
    const report = await reportOf(handle);
    expect(report.status).toBe('succeeded');
    expect((await getService(stack, idOf(target))).metadata?.environment).toBe('PROD');
  });

  test("a schedule's runs are verified as its creator's; its signature copied into other inputs is not", async () => {
    const service = await seedService(stack, { name: 'scheduled' });
    const other = await seedService(stack, { name: 'unscheduled' });
    const scheduleId = `nightly-${Date.now()}`;
    const inputs = { project_id: stack.projectId, service_id: idOf(service) };
    const startedBy = signScheduleStart(keys.dave.privateKey, {
      scheduleId,
      by: 'dave',
      definitionHash: definitionHash(definition),
      inputs,
    });
    const schedule = await stack.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '365d' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'runbookWorkflow',
        workflowId: scheduleId,
        taskQueue: stack.taskQueue,
        args: [{ definition, inputs, startedBy } satisfies RunbookWorkflowInput],
      },
      state: { paused: true },
    });
    try {
      await schedule.trigger();
      const runId = await pollUntil(
        'the scheduled run to start',
        async () => (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId,
        (id) => id !== undefined,
        30_000,
      );
      const run = stack.client.workflow.getHandle(runId ?? '');
      await waitForApproval(run);
      const progress = await run.query(progressQuery);
      expect(progress.admission?.starter).toMatchObject({ by: 'dave', verified: true, groups: ['dba'] });
      await run.terminate('test over');

      // The same signature in a raw start under the schedule's id prefix, aimed at another service.
      const copyId = `${scheduleId}-2030-01-01T00:00:00Z`;
      const copy = await start(copyId, {
        definition,
        inputs: { ...inputs, service_id: idOf(other) },
        startedBy,
      });
      const report = await reportOf(copy);
      expect(report.failure?.type).toBe('APPROVAL_START_UNVERIFIED');
      expect(report.admission?.starter.reason).toContain('the definition or inputs changed');
    } finally {
      await schedule.delete();
    }
  });

  test('a forged admission in the start input, or a raw foreach batch, runs nothing', async () => {
    const service = await seedService(stack, { name: 'forged' });
    const workflowId = `forged-admission-${Date.now()}`;
    const stripped: RunbookDefinition = {
      ...definition,
      formatVersion: 1,
      steps: definition.steps.filter((step) => step.kind !== 'approve'),
    };
    const report = await reportOf(
      await start(workflowId, {
        definition: stripped,
        inputs: { project_id: stack.projectId, service_id: idOf(service) },
        // What a child runbook gets from its parent; a run without a parent ignores it.
        admission: {
          allowed: true,
          mode: 'development',
          definitionHash: '0'.repeat(64),
          starter: { by: 'dave', verified: true, groups: ['dba'] },
          policies: [],
          checksSteps: false,
        },
      }),
    );
    expect(report.failure?.type).toBe('RUNBOOK_NOT_ALLOWED');
    expect(report.admission?.starter).toMatchObject({ by: null, verified: false });

    const promote = definition.steps.find((step) => step.id === 'promote');
    const batch = await stack.client.workflow.start('foreachBatchWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `raw-batch-${Date.now()}`,
      args: [
        {
          runbook: 'promote-to-prod',
          key: 'each',
          step: {
            kind: 'foreach',
            id: 'each',
            items: '${{ [1] }}',
            as: 'item',
            steps: [promote],
            compensate: [],
            continueOnError: false,
          },
          items: [1],
          offset: 0,
          concurrency: 1,
          scope: { inputs: { project_id: stack.projectId, service_id: idOf(service) }, steps: {}, vars: {} },
          heldLocks: [],
        },
      ],
    });
    const refusal = await batch.result().then(
      () => undefined,
      (error: unknown) => (error as { cause?: { type?: string } }).cause?.type,
    );
    expect(refusal).toBe('RUNBOOK_NOT_ALLOWED');
    expect((await getService(stack, idOf(service))).metadata?.environment).not.toBe('PROD');
  });
});
