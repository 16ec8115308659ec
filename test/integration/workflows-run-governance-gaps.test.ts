// Three places where the worker's governance asked nothing, closed, on a real dev server and the
// local cloud, through a worker process with a configuration file and the `tideline` CLI (and,
// for the hidden target, the raw start an attacker would send):
// - a `require-approval` rule evaluated at the start asks its signed quorum before the first step;
//   a rule whose quorum no approver can give keeps the worker from starting;
// - a secret input whose value is the target's id hides nothing: the policy sees the target;
// - a run reset to before its guarded change asks its approvers again (their decisions were
//   signed for the run it was reset from).
import { signedStartInput } from '../helpers/people-keys';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createPrivateKey } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import Long from 'long';
import type { Admission } from '../../contract/admission-messages';
import type { ApprovalAuditEntry } from '../../contract/approval-messages';
import type { PolicyRecord } from '../../contract/policy-messages';
import { progressQuery, type RunbookWorkflowInput, type RunProgress } from '../../contract/run-messages';
import { loadRunbookFile } from '../../dsl/loader';
import { runTideline, type CliResult } from '../helpers/cli-process';
import type { GuardedProcess } from '../helpers/guarded-process';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { pollUntil, reportOf } from '../helpers/runbook-fixtures';
import {
  REPO_ROOT,
  TEST_ENCRYPTION_KEYS,
  WORKER_ENTRY,
  startWorkerProcess,
  workerEnvironment,
} from '../helpers/worker-process';

const PEOPLE = ['alice', 'bob', 'carol', 'dave'] as const;
type Person = (typeof PEOPLE)[number];
const ROTATE = path.join('runbooks', 'rotate-password.yaml');
const PROMOTE = path.join('test', 'fixtures', 'approvals', 'promote-to-prod.yaml');
const taskQueue = `governance-gaps-${process.pid}`;

let stack: ProcessWorkerStack;
let worker: GuardedProcess | undefined;
let home: string;
let projectId: string;
let vault: string;
let crown: string;
const publicKeys = new Map<Person, string>();

function tideline(...args: string[]): Promise<CliResult> {
  return tidelineWith({}, ...args);
}

/**
 * `tideline approve` as a person does it: read the plan and its fingerprint first (nothing is
 * signed), then approve that fingerprint.
 */
async function approve(id: string, who: Person): Promise<CliResult> {
  const read = await tideline('approve', id, '--by', who);
  expect(read.stderr).toContain('nothing was signed');
  const fingerprint = /^plan fingerprint: ([0-9a-f]{16})$/m.exec(read.stdout)?.[1];
  expect(fingerprint).toBeDefined();
  return tideline('approve', id, '--by', who, '--plan', fingerprint!);
}

/** With secret inputs given the way the CLI asks for them (TIDELINE_INPUT_NAME). */
function tidelineWith(secrets: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return runTideline(args, {
    env: {
      ...Object.fromEntries(
        Object.entries(secrets).map(([name, value]) => [`TIDELINE_INPUT_${name.toUpperCase()}`, value]),
      ),
      HOME: home,
      TEMPORAL_ADDRESS: stack.server.address,
      TIDELINE_TASK_QUEUE: taskQueue,
      TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
      NO_COLOR: '1',
    },
  });
}

/** The private key `tideline keys create` wrote for a person (what an attacker holding it signs with). */
function privateKeyOf(who: Person) {
  return createPrivateKey(readFileSync(path.join(home, '.tideline', 'approval-keys', `${who}.pem`)));
}

async function seed(name: string, environment: 'DEV' | 'PROD'): Promise<string> {
  const id = (
    await stack.api.service.create({ project_id: projectId, name, cpu_millis: '1000', memory_gbs: '4' })
  ).service_id!;
  await pollUntil(
    `service ${name} ready`,
    () => stack.api.service.get({ project_id: projectId, service_id: id }),
    (s) => s.status === 'READY',
    30_000,
  );
  await stack.api.service.setEnvironment({ project_id: projectId, service_id: id, environment });
  return id;
}

function configText(policies: string, groups = '{ dba: [alice, carol, dave] }'): string {
  const keys = [...publicKeys].map(([name, key]) => `    ${name}: '${key}'`).join('\n');
  return `approvals:\n  keys:\n${keys}\n  groups: ${groups}\npolicies:\n${policies}`;
}

function writeConfig(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

const progressOf = (handle: WorkflowHandle) => handle.query(progressQuery);

function pendingStep(handle: WorkflowHandle, stepKey: string): Promise<RunProgress> {
  return pollUntil(
    `approval ${stepKey} to be pending`,
    () => progressOf(handle).catch(() => undefined),
    (p) => p?.pendingApproval?.stepKey === stepKey,
    60_000,
  ) as Promise<RunProgress>;
}

interface AuditRecord {
  admission?: Admission;
  approvals: ApprovalAuditEntry[];
  policies: PolicyRecord[];
}

async function audit(id: string): Promise<AuditRecord> {
  const result = await tideline('--json', 'audit', id);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as AuditRecord;
}

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'tideline-governance-gaps-'));
  stack = await startProcessWorkerStack({ taskQueue, cloud: { timeScale: 0.02 } });
  for (const name of PEOPLE) {
    const created = await tideline('keys', 'create', name);
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
    const line = /^\s*(\w+): '?(ed25519:[^'\s]+)'?\s*$/m.exec(created.stdout);
    expect(line?.[1]).toBe(name);
    publicKeys.set(name, line![2]!);
  }
  projectId = stack.cloud.project.id;
  vault = await seed('vault', 'PROD');
  crown = await seed('crown', 'PROD');
  const config = writeConfig(
    home,
    'worker.yaml',
    configText(`  - name: vault-rotation-needs-two
    description: Rotating the vault's password needs two DBAs.
    when: "runbook.name == 'rotate-password' && inputs.service_id == '${vault}'"
    effect: require-approval
    approvals: { group: dba, count: 2 }
  - name: crown-rotation-dba-only
    when: "step.action == 'service.updatePassword' && step.with.service_id == '${crown}'"
    unless: "'dba' in starter.groups"
    effect: deny
    message: Only group:dba may rotate the crown database's password.
`),
  );
  worker = await startWorkerProcess({ env: { ...stack.workerEnv(), TIDELINE_CONFIG: config } });
}, 300_000);

afterAll(async () => {
  await worker?.kill();
  await stack?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A raw start of the rotation, signed by `who` as the CLI signs it (for exactly this start). */
function signedRotation(
  workflowId: string,
  who: Person,
  inputs: Record<string, unknown>,
): RunbookWorkflowInput {
  const definition = loadRunbookFile(path.join(REPO_ROOT, ROTATE));
  return signedStartInput(privateKeyOf(who), { workflowId, taskQueue, by: who, definition, inputs });
}

describe('a require-approval rule evaluated at the start', () => {
  test('asks two DBAs (never the starter) before any step, shows the target, and is audited', async () => {
    const id = `vault-rotation-${Date.now()}`;
    const started = await tidelineWith(
      // The target's id as a secret's value hides nothing from the approvers.
      { new_password: 'a-new-password-1234', previous_password: vault },
      'run',
      ROTATE,
      '-i',
      `project_id=${projectId}`,
      '-i',
      `service_id=${vault}`,
      '--id',
      id,
      '--by',
      'alice',
      '--detach',
    );
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    const handle = stack.client.workflow.getHandle(id);
    const key = '(start).policy.vault-rotation-needs-two';
    const waiting = await pendingStep(handle, key);
    expect(waiting.pendingApproval).toMatchObject({
      approvers: ['group:dba'],
      minApprovals: 2,
      allowSelfApproval: false,
    });
    expect(waiting.steps.every((step) => step.status === 'pending')).toBe(true);
    expect(waiting.pendingApproval?.plan?.changes).toEqual([
      {
        stepKey: 'rotate',
        action: 'service.updatePassword',
        with: { project_id: projectId, service_id: vault, password: '(secret)' },
      },
    ]);

    const self = await approve(id, 'alice');
    expect(self.code).toBe(1);
    expect(self.stderr).toContain('alice started this run; this step does not allow self-approval');
    const outsider = await approve(id, 'bob');
    expect(outsider.code).toBe(1);
    expect(outsider.stderr).toContain("bob is not one of this step's approvers");
    expect((await approve(id, 'carol')).code).toBe(0);
    expect((await approve(id, 'dave')).code).toBe(0);

    const report = await reportOf(handle);
    expect(report.status).toBe('succeeded');
    expect(report.steps.find((step) => step.key === 'rotate')?.status).toBe('done');
    const record = await audit(id);
    expect(record.approvals.map((entry) => [entry.stepKey, entry.by, entry.accepted, entry.code])).toEqual([
      [key, 'alice', false, 'APPROVAL_SELF'],
      [key, 'bob', false, 'APPROVAL_NOT_APPROVER'],
      [key, 'carol', true, undefined],
      [key, 'dave', true, undefined],
    ]);
    expect(record.admission?.startApprovals).toEqual([
      { rule: 'vault-rotation-needs-two', group: 'dba', count: 2 },
    ]);
    expect(record.admission?.policies.map((p) => [p.rule, p.effect, p.stepKey])).toEqual([
      ['vault-rotation-needs-two', 'require-approval', null],
    ]);
  }, 180_000);

  test('a raw signed start meets the same question before its first step', async () => {
    const workflowId = `vault-raw-${Date.now()}`;
    const handle = await stack.client.workflow.start('runbookWorkflow', {
      taskQueue,
      workflowId,
      args: [
        signedRotation(workflowId, 'dave', {
          project_id: projectId,
          service_id: vault,
          new_password: 'another-password-1234',
        }),
      ],
    });
    const waiting = await pendingStep(handle, '(start).policy.vault-rotation-needs-two');
    expect(waiting.steps.every((step) => step.status === 'pending')).toBe(true);
    await handle.terminate('test over');
  }, 120_000);

  test('a worker whose rule asks a quorum its approvers cannot give refuses to start, naming the rule', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tideline-unenforceable-'));
    try {
      const config = writeConfig(
        dir,
        'worker.yaml',
        configText(
          `  - name: rotation-needs-three
    when: "runbook.name == 'rotate-password'"
    effect: require-approval
    approvals: { group: dba, count: 3 }
`,
          '{ dba: [alice, dave] }',
        ),
      );
      const result = spawnSync(process.execPath, [WORKER_ENTRY], {
        cwd: REPO_ROOT,
        env: workerEnvironment({ ...stack.workerEnv(), TIDELINE_CONFIG: config }),
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(result.status).not.toBe(0);
      expect(result.status).not.toBeNull();
      expect(result.stderr).toContain('invalid tideline worker configuration');
      expect(result.stderr).toContain(
        'policies[0].approvals: rule rotation-needs-three asks 3 approvals of group:dba, which has 2 members with a key',
      );
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});

describe('a secret input does not hide the target from the policies', () => {
  const inputs = (extra: Record<string, string> = {}) => ({
    project_id: projectId,
    service_id: crown,
    new_password: 'bobs-new-password-1234',
    previous_password: crown,
    ...extra,
  });

  test('through the CLI: bob passes the crown id also as previous_password, and is refused', async () => {
    const id = `crown-cli-${Date.now()}`;
    const { new_password, previous_password, ...plain } = inputs();
    const args = Object.entries(plain).flatMap(([name, value]) => ['-i', `${name}=${value}`]);
    const started = await tidelineWith(
      { new_password, previous_password },
      'run',
      ROTATE,
      ...args,
      '--id',
      id,
      '--by',
      'bob',
      '--detach',
    );
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    const report = await reportOf(stack.client.workflow.getHandle(id));
    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'rotate', type: 'POLICY_DENIED' });
    expect(report.steps.find((step) => step.key === 'rotate')?.status).toBe('failed');
    const record = await audit(id);
    expect(record.policies.map((p) => [p.rule, p.effect, p.stepKey])).toEqual([
      ['crown-rotation-dba-only', 'deny', 'rotate'],
    ]);
    const text = await tideline('audit', id);
    expect(text.stdout).toContain('crown-rotation-dba-only');
    expect(text.stdout).not.toContain('bobs-new-password-1234');
  }, 120_000);

  test('as a raw start signed with bob’s key: refused the same way', async () => {
    const workflowId = `crown-raw-${Date.now()}`;
    const handle = await stack.client.workflow.start('runbookWorkflow', {
      taskQueue,
      workflowId,
      args: [signedRotation(workflowId, 'bob', inputs())],
    });
    const report = await reportOf(handle);
    expect(report.failure).toMatchObject({ stepKey: 'rotate', type: 'POLICY_DENIED' });
    expect(report.policies?.map((p) => p.rule)).toEqual(['crown-rotation-dba-only']);
  }, 120_000);
});

describe('a reset run', () => {
  test('does not inherit the decisions of the run it was reset from: it asks again before promoting', async () => {
    const service = await seed('promoted', 'DEV');
    const id = `promote-reset-${Date.now()}`;
    const started = await tideline(
      'run',
      PROMOTE,
      '-i',
      `project_id=${projectId}`,
      '-i',
      `service_id=${service}`,
      '--id',
      id,
      '--by',
      'dave',
      '--detach',
    );
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    const handle = stack.client.workflow.getHandle(id);
    await pendingStep(handle, 'sign_off');
    expect((await approve(id, 'alice')).code).toBe(0);
    expect((await approve(id, 'bob')).code).toBe(0);
    expect((await reportOf(handle)).status).toBe('succeeded');
    const environmentOf = async () =>
      (await stack.api.service.get({ project_id: projectId, service_id: service })).metadata?.environment;
    expect(await environmentOf()).toBe('PROD');

    // Set back by hand; then the run is reset to the workflow task that completed the approval
    // and promoted (its commands are dropped), as `temporal workflow reset --event-id` does.
    await stack.api.service.setEnvironment({
      project_id: projectId,
      service_id: service,
      environment: 'DEV',
    });
    const { runId } = await handle.describe();
    const events = (await handle.fetchHistory()).events ?? [];
    const completed = events.findLastIndex((e) => e.workflowExecutionUpdateCompletedEventAttributes);
    const taskDone = events.slice(0, completed).findLast((e) => e.workflowTaskCompletedEventAttributes);
    expect(taskDone?.eventId).toBeDefined();
    const reset = await stack.client.workflowService.resetWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: id, runId },
      reason: 'the service was set back by hand',
      workflowTaskFinishEventId: Long.fromValue(taskDone!.eventId!),
      requestId: randomUUID(),
    });
    expect(reset.runId).toBeTruthy();
    expect(reset.runId).not.toBe(runId);

    const again = stack.client.workflow.getHandle(id, reset.runId!);
    const asked = await pendingStep(again, 'sign_off');
    expect(asked.steps.find((step) => step.key === 'promote')?.status).not.toBe('done');
    expect(await environmentOf()).toBe('DEV');
    // The decisions signed for the run it was reset from are there, and were not enough.
    expect(asked.approvals?.filter((e) => e.accepted).map((e) => e.by)).toEqual(['alice', 'bob']);

    expect((await approve(id, 'alice')).code).toBe(0);
    expect((await approve(id, 'carol')).code).toBe(0);
    expect((await reportOf(again)).status).toBe('succeeded');
    expect(await environmentOf()).toBe('PROD');
    const record = await audit(id);
    expect(record.approvals.filter((e) => e.accepted).map((e) => e.by)).toEqual([
      'alice',
      'bob',
      'alice',
      'carol',
    ]);
  }, 240_000);
});
