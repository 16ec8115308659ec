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

  /** A start as `who` signs it (with the CLI's signStart): for this id, queue, definition and inputs. */
  const signedBy = (
    who: Person,
    workflowId: string,
    inputs: Record<string, unknown>,
    signedDefinition: RunbookDefinition = definition,
  ) =>
    signStart(keys[who].privateKey, {
      workflowId,
      taskQueue: stack.taskQueue,
      by: who,
      definition: signedDefinition,
      inputs,
    });

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
      const inputs = { project_id: stack.projectId, service_id: service.service_id };
      const handle = await start(workflowId, {
        definition: forged,
        inputs,
        startedBy: signedBy('mallory', workflowId, inputs, forged),
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
    const begin = (serviceId: string) => {
      const inputs = { project_id: stack.projectId, service_id: serviceId };
      return start(workflowId, { definition, inputs, startedBy: signedBy('dave', workflowId, inputs) });
    };
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
    // A service that does not exist: promote fails and the run holds.
    const missing = { project_id: stack.projectId, service_id: 'zzzzzzzzzz' };
    const handle = await start(workflowId, {
      definition,
      inputs: missing,
      onFailure: 'hold',
      startedBy: signedBy('dave', workflowId, missing),
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

  /** A paused schedule as `tideline schedule create` makes one: created, then signed as created. */
  async function signedSchedule(scheduleId: string, inputs: Record<string, unknown>) {
    const action = {
      type: 'startWorkflow' as const,
      workflowType: 'runbookWorkflow',
      workflowId: scheduleId,
      taskQueue: stack.taskQueue,
      args: [{ definition, inputs, startedBy: { by: 'dave' } } satisfies RunbookWorkflowInput],
    };
    const spec = { intervals: [{ every: '365d' }] };
    const schedule = await stack.client.schedule.create({
      scheduleId,
      spec,
      action,
      state: { paused: true },
    });
    const created = await schedule.describe();
    const startedBy = signScheduleStart(keys.dave.privateKey, {
      scheduleId,
      scheduleCreatedAt: created.info.createdAt.getTime(),
      taskQueue: stack.taskQueue,
      by: 'dave',
      definition,
      inputs,
    });
    const signedInput: RunbookWorkflowInput = { definition, inputs, startedBy };
    const signedAction = { ...action, args: [signedInput] };
    await schedule.update(() => ({ spec, action: signedAction, state: { paused: true } }));
    return { schedule, startedBy, signedInput, action: signedAction, spec };
  }

  /** The run a schedule started when triggered. */
  async function triggered(schedule: Awaited<ReturnType<typeof signedSchedule>>['schedule']) {
    await schedule.trigger();
    const runId = await pollUntil(
      'the scheduled run to start',
      async () => (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId,
      (id) => id !== undefined,
      30_000,
    );
    return stack.client.workflow.getHandle(runId ?? '');
  }

  test("a schedule's runs are verified as its creator's; its signature copied into other inputs is not", async () => {
    const service = await seedService(stack, { name: 'scheduled' });
    const other = await seedService(stack, { name: 'unscheduled' });
    const scheduleId = `nightly-${Date.now()}`;
    const inputs = { project_id: stack.projectId, service_id: idOf(service) };
    const { schedule, startedBy } = await signedSchedule(scheduleId, inputs);
    try {
      const run = await triggered(schedule);
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
      expect(report.admission?.starter.reason).toContain('the definition, inputs or task queue differ');
    } finally {
      await schedule.delete();
    }
  });

  test("a schedule's signed action copied into another schedule of the same id, after the first was deleted, is refused", async () => {
    const service = await seedService(stack, { name: 'replayed-schedule' });
    const scheduleId = `copied-${Date.now()}`;
    const inputs = { project_id: stack.projectId, service_id: idOf(service) };
    const signed = await signedSchedule(scheduleId, inputs);
    await signed.schedule.delete();
    // mallory makes a schedule of her own under the same id, carrying dave's signed action as is.
    const copy = await stack.client.schedule.create({
      scheduleId,
      spec: signed.spec,
      action: signed.action,
      state: { paused: true },
    });
    try {
      const run = await triggered(copy);
      const report = await reportOf(run);
      expect(report.status).toBe('failed');
      expect(report.failure).toMatchObject({ stepKey: '', type: 'START_REPLAYED' });
      expect(report.admission).toMatchObject({
        allowed: false,
        code: 'START_REPLAYED',
        reason: `schedule ${scheduleId} was created anew after the signature was made for it`,
      });
      expect(report.steps.every((step) => step.status === 'pending')).toBe(true);
      // The same action under the schedule's prefix once no schedule of that id exists: refused too.
      await copy.delete();
      const orphan = await start(`${scheduleId}-2031-01-01T00:00:00Z`, signed.signedInput);
      expect((await reportOf(orphan)).admission).toMatchObject({
        allowed: false,
        code: 'START_REPLAYED',
        reason: `schedule ${scheduleId}, which the signature was made for, does not exist`,
      });
    } finally {
      await copy.delete().catch(() => undefined);
    }
    expect((await getService(stack, idOf(service))).metadata?.environment).not.toBe('PROD');
  });

  test('a start signature replayed under the same workflow id after its run closed starts nothing', async () => {
    const service = await seedService(stack, { name: 'replay-target' });
    const other = await seedService(stack, { name: 'replay-other' });
    const workflowId = `replayed-${Date.now()}`;
    const inputs = { project_id: stack.projectId, service_id: idOf(service) };
    const startedBy = signedBy('dave', workflowId, inputs);
    const first = await start(workflowId, { definition, inputs, startedBy });
    await waitForApproval(first);
    expect((await first.query(progressQuery)).admission?.starter).toMatchObject({ verified: true });
    await first.terminate('closed before the replay');

    // The signature read from the closed run, sent again under the same (reusable) id.
    const again = await reportOf(await start(workflowId, { definition, inputs, startedBy }));
    expect(again.status).toBe('failed');
    expect(again.failure).toMatchObject({ stepKey: '', type: 'START_REPLAYED' });
    expect(again.admission).toMatchObject({
      allowed: false,
      code: 'START_REPLAYED',
      reason: 'this start signature was already used by another run',
      starter: { by: 'dave', verified: true },
    });
    expect(again.steps.every((step) => step.status === 'pending')).toBe(true);

    // With other inputs the signature does not verify: the run is not dave's.
    const retargeted = { ...inputs, service_id: idOf(other) };
    const redirected = await reportOf(await start(workflowId, { definition, inputs: retargeted, startedBy }));
    expect(redirected.admission?.starter).toMatchObject({ by: 'dave', verified: false });
    expect(redirected.admission?.starter.reason).toContain('the definition, inputs or task queue differ');
    expect(redirected.failure?.type).toBe('APPROVAL_START_UNVERIFIED');
    for (const target of [service, other])
      expect((await getService(stack, idOf(target))).metadata?.environment).not.toBe('PROD');
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
