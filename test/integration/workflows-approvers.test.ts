// Two-of-three signed approvals on a PROD-changing runbook (test/fixtures/approvals/): the worker
// holds the approvers' public keys and the dba group; every refused decision (the starter, someone
// not listed, a forged signature, a replayed one, a second approval by the same person, an unsigned
// one) is refused with its code and kept in the run's audit trail, which `tideline audit --json`
// shows; two valid approvals let the run tag the service PROD, and one listed approver's signed
// rejection rejects the step even after another approved.
import { keyPairsFor, signedStartInput } from '../helpers/people-keys';
import path from 'node:path';
import { publicKeyText } from '../../activities/approval-keys';
import { signDecision } from '../../activities/approval-signatures';
import { auditCommand } from '../../cli/commands/audit';
import type { CliContext } from '../../cli/context';
import type { ApprovalAuditEntry } from '../../contract/approval-messages';
import type { ApprovalDecision } from '../../contract/run-messages';
import { loadRunbookFile } from '../../dsl/loader';
import { capturedStreams } from '../helpers/captured-streams';
import {
  decide,
  getService,
  pollUntil,
  reportOf,
  seedService,
  waitForApproval,
} from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { TEST_ENCRYPTION_KEYS, testKeyRing } from '../helpers/worker-process';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'approvals', 'promote-to-prod.yaml');
const people = ['alice', 'bob', 'carol', 'dave', 'mallory'] as const;
const keys = keyPairsFor(people);

describe('approve step with approvers', () => {
  let stack: RunbookStack;

  beforeAll(async () => {
    stack = await startRunbookStack(
      { timeScale: 0.05 },
      {
        keyRing: testKeyRing,
        approvals: {
          keys: new Map(people.map((name) => [name, [publicKeyText(keys[name].publicKey)]])),
          // dave (the starter) and carol are DBAs; mallory has a key but is no approver.
          groups: new Map([['dba', ['carol', 'dave']]]),
        },
      },
    );
  }, 60_000);
  afterAll(async () => stack?.close());

  async function audit(workflowId: string): Promise<ApprovalAuditEntry[]> {
    const streams = capturedStreams();
    const ctx: CliContext = {
      stdout: streams.stdout,
      stderr: streams.stderr,
      env: { TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, HOME: '/nonexistent' },
      cwd: process.cwd(),
      globals: { json: true, address: stack.server.address, taskQueue: stack.taskQueue },
      interrupted: new Promise(() => undefined),
    };
    expect(await auditCommand([workflowId], ctx)).toBe(0);
    return (JSON.parse(streams.out()) as { approvals: ApprovalAuditEntry[] }).approvals;
  }

  test('two valid approvals promote; the starter, an outsider, a forgery, a replay and a repeat are refused and audited', async () => {
    const service = await seedService(stack, { name: 'ledger' });
    const definition = loadRunbookFile(FIXTURE);
    expect(definition.formatVersion).toBe(2);
    const workflowId = `promote-${Date.now()}`;
    const inputs = { project_id: stack.projectId, service_id: service.service_id };
    const input = signedStartInput(keys.dave.privateKey, {
      workflowId,
      taskQueue: stack.taskQueue,
      by: 'dave',
      definition,
      inputs,
    });
    const handle = await stack.client.workflow.start('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [input],
    });
    const pending = await waitForApproval(handle);
    expect(pending).toMatchObject({ stepKey: 'sign_off', minApprovals: 2, allowSelfApproval: false });
    // Approvers are shown the change the step guards, resolved, and sign it.
    const plan = pending.plan;
    expect(plan?.changes).toEqual([
      {
        stepKey: 'promote',
        action: 'service.setEnvironment',
        with: { project_id: stack.projectId, service_id: service.service_id, environment: 'PROD' },
      },
    ]);
    const runId = (await handle.describe()).runId;
    const signedBy = (name: string, keyOf: (typeof people)[number] = name as (typeof people)[number]) => {
      const decision: ApprovalDecision = {
        approved: true,
        step: 'sign_off',
        by: name,
        comment: `${name} ok`,
      };
      decision.signature = signDecision(keys[keyOf].privateKey, {
        workflowId,
        runId,
        stepKey: 'sign_off',
        approved: true,
        by: name,
        comment: `${name} ok`,
        ...(plan !== undefined && { plan }),
      });
      return decision;
    };

    // Found by who may answer it (visibility is eventually consistent: polled).
    const awaiting = (approver: string) =>
      pollUntil(
        `the run to be listed as awaiting ${approver}`,
        async () => {
          const found: string[] = [];
          const query = `TidelineAwaitingApproval = '${approver}' AND WorkflowId = '${workflowId}'`;
          for await (const run of stack.client.workflow.list({ query })) found.push(run.workflowId);
          return found;
        },
        (found) => found.length === 1,
        30_000,
      );
    await awaiting('group:dba');
    await awaiting('alice');
    const refusedCode = async (decision: ApprovalDecision) => (await decide(handle, decision)).refused?.code;
    expect(await refusedCode(signedBy('dave'))).toBe('APPROVAL_SELF');
    expect(await refusedCode(signedBy('mallory'))).toBe('APPROVAL_NOT_APPROVER');
    expect(await refusedCode(signedBy('alice', 'mallory'))).toBe('APPROVAL_BAD_SIGNATURE');
    expect(await refusedCode({ approved: true, step: 'sign_off', by: 'bob' })).toBe('APPROVAL_UNSIGNED');
    const alice = signedBy('alice');
    const first = await decide(handle, alice);
    expect(first).toMatchObject({ approved: true, count: { approvals: 1, needed: 2 } });
    expect(first.refused).toBeUndefined();
    expect(await refusedCode(alice)).toBe('APPROVAL_REPLAYED');
    expect(await refusedCode(signedBy('alice'))).toBe('APPROVAL_DUPLICATE');
    // Still pending after all of that: only one approval counted.
    expect(await waitForApproval(handle)).toMatchObject({ approvedBy: ['alice'] });
    expect(await decide(handle, signedBy('carol'))).toMatchObject({
      count: { approvals: 2, needed: 2 },
      approvedBy: ['alice', 'carol'],
    });

    const report = await reportOf(handle);
    expect(report.status).toBe('succeeded');
    expect(report.outputs.approved_by).toBe('alice, carol');
    // Answered: no longer awaiting anyone.
    await pollUntil(
      'the run to await nobody',
      async () => (await handle.describe()).searchAttributes.TidelineAwaitingApproval,
      // An empty list removes the attribute.
      (values) => values === undefined || (Array.isArray(values) && values.length === 0),
      30_000,
    );
    expect(await getService(stack, service.service_id!)).toMatchObject({ metadata: { environment: 'PROD' } });

    const trail = await audit(workflowId);
    expect(trail.map((e) => [e.by, e.accepted, e.code ?? e.via])).toEqual([
      ['dave', false, 'APPROVAL_SELF'],
      ['mallory', false, 'APPROVAL_NOT_APPROVER'],
      ['alice', false, 'APPROVAL_BAD_SIGNATURE'],
      ['bob', false, 'APPROVAL_UNSIGNED'],
      ['alice', true, 'alice'],
      ['alice', false, 'APPROVAL_REPLAYED'],
      ['alice', false, 'APPROVAL_DUPLICATE'],
      ['carol', true, 'group:dba'],
    ]);
    expect(trail.every((e) => e.reason === undefined || e.reason.length > 0)).toBe(true);
    expect(trail[4]).toMatchObject({ stepKey: 'sign_off', decision: 'approve', comment: 'alice ok' });
    expect(trail[4]!.keyId).toMatch(/^[0-9a-f]{16}$/);
  }, 40_000);

  test('a listed approver who rejects rejects the step, even after another approved', async () => {
    const service = await seedService(stack, { name: 'vetoed' });
    const workflowId = `veto-${Date.now()}`;
    const definition = loadRunbookFile(FIXTURE);
    const inputs = { project_id: stack.projectId, service_id: service.service_id };
    const handle = await stack.client.workflow.start('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [
        signedStartInput(keys.dave.privateKey, {
          workflowId,
          taskQueue: stack.taskQueue,
          by: 'dave',
          definition,
          inputs,
        }),
      ],
    });
    const { plan } = await waitForApproval(handle);
    const runId = (await handle.describe()).runId;
    const decision = (name: 'alice' | 'bob', approved: boolean): ApprovalDecision => {
      const comment = approved ? 'fine by me' : 'not during the freeze';
      return {
        approved,
        step: 'sign_off',
        by: name,
        comment,
        signature: signDecision(keys[name].privateKey, {
          workflowId,
          runId,
          stepKey: 'sign_off',
          approved,
          by: name,
          comment,
          ...(plan !== undefined && { plan }),
        }),
      };
    };
    expect(await decide(handle, decision('alice', true))).toMatchObject({
      count: { approvals: 1, needed: 2 },
    });
    const veto = await decide(handle, decision('bob', false));
    expect(veto.refused).toBeUndefined();
    expect(veto).toMatchObject({ approved: false });

    const report = await reportOf(handle);
    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'sign_off' });
    expect(report.steps.find((s) => s.id === 'promote')?.status).toBe('pending');
    expect(await getService(stack, service.service_id!)).toMatchObject({ metadata: { environment: 'DEV' } });
    const trail = await audit(workflowId);
    expect(trail.map((e) => [e.by, e.decision, e.accepted, e.comment])).toEqual([
      ['alice', 'approve', true, 'fine by me'],
      ['bob', 'reject', true, 'not during the freeze'],
    ]);
  }, 40_000);
});
