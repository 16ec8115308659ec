// An agent's key registered the way docs/mcp.md says, through the user's own path: `tideline keys
// create mcp:agent` prints the line, the line goes under `approvals.keys` of the worker's YAML
// file, and a worker process started from that file verifies the starts `tideline mcp` signs. A
// runbook whose approval refuses self-approval then waits for two people (it would fail at once
// with APPROVAL_START_UNVERIFIED were the agent's start unverified), and the audit shows the
// agent as the verified starter.
import { createPrivateKey } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTideline, type CliResult } from '../helpers/cli-process';
import type { GuardedProcess } from '../helpers/guarded-process';
import { connectAgent, toolCalls, type ConnectedAgent, type Structured } from '../helpers/mcp-agent';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { pollUntil } from '../helpers/runbook-fixtures';
import { REPO_ROOT, TEST_ENCRYPTION_KEYS, startWorkerProcess } from '../helpers/worker-process';

const AGENT = 'mcp:agent';
const NAMES = [AGENT, 'alice', 'bob'] as const;
const RUNBOOK = 'promote-to-prod';
const taskQueue = `mcp-agent-key-${process.pid}`;

let stack: ProcessWorkerStack;
let worker: GuardedProcess | undefined;
let connected: ConnectedAgent | undefined;
let home: string;
const { ok } = toolCalls(() => connected!.client);

function tideline(...args: string[]): Promise<CliResult> {
  return runTideline(args, {
    env: {
      HOME: home,
      TEMPORAL_ADDRESS: stack.server.address,
      TIDELINE_TASK_QUEUE: taskQueue,
      TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
      NO_COLOR: '1',
    },
  });
}

/** `tideline approve` as a person does it: read the plan's fingerprint, then approve it. */
async function approve(runId: string, who: string): Promise<CliResult> {
  const read = await tideline('approve', runId, '--by', who);
  const fingerprint = /^plan fingerprint: ([0-9a-f]{16})$/m.exec(read.stdout)?.[1];
  expect(fingerprint).toBeDefined();
  return tideline('approve', runId, '--by', who, '--plan', fingerprint!);
}

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'tideline-agent-key-'));
  stack = await startProcessWorkerStack({ taskQueue, cloud: { timeScale: 0.02 } });
  const lines: string[] = [];
  for (const name of NAMES) {
    const created = await tideline('keys', 'create', name);
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
    // The line `tideline keys create` prints to register, as is.
    const line = created.stdout.split('\n').find((text) => text.startsWith(`${name}: 'ed25519:`));
    expect(line).toBeDefined();
    lines.push(`    ${line!}`);
  }
  const config = path.join(home, 'worker.yaml');
  writeFileSync(config, `approvals:\n  keys:\n${lines.join('\n')}\n  groups: { dba: [alice] }\n`, {
    mode: 0o600,
  });
  worker = await startWorkerProcess({ env: { ...stack.workerEnv(), TIDELINE_CONFIG: config } });
  const runbooks = path.join(home, 'runbooks');
  mkdirSync(runbooks);
  copyFileSync(
    path.join(REPO_ROOT, 'test', 'fixtures', 'approvals', `${RUNBOOK}.yaml`),
    path.join(runbooks, `${RUNBOOK}.yaml`),
  );
  connected = await connectAgent('stdio', {
    stack: { server: stack.server, taskQueue },
    runbooks,
    agent: AGENT,
    key: createPrivateKey(readFileSync(path.join(home, '.tideline', 'approval-keys', `${AGENT}.pem`))),
    home,
  });
}, 300_000);

afterAll(async () => {
  await connected?.close();
  await worker?.kill();
  await stack?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

test("the agent's start, signed with the key registered in the YAML file, is verified", async () => {
  const projectId = stack.cloud.project.id;
  const serviceId = (
    await stack.api.service.create({
      project_id: projectId,
      name: 'orders',
      cpu_millis: '1000',
      memory_gbs: '4',
    })
  ).service_id!;
  const inputs = { project_id: projectId, service_id: serviceId };
  const plan = await ok('plan', { runbook: RUNBOOK, inputs });
  const started = await ok('start', { runbook: RUNBOOK, inputs, planHash: plan.planHash });
  expect(started).toMatchObject({ startedBy: AGENT });
  const runId = started.runId as string;

  const waiting = await pollUntil(
    'the sign-off to wait for approvers',
    () => ok('status', { runId }),
    (state) =>
      state.execution !== 'RUNNING' || (state.pendingApproval as Structured | undefined) !== undefined,
    120_000,
  );
  expect(waiting).toMatchObject({ execution: 'RUNNING', pendingApproval: { stepKey: 'sign_off' } });
  expect((await approve(runId, 'alice')).code).toBe(0);
  expect((await approve(runId, 'bob')).code).toBe(0);

  const done = await pollUntil(
    `run ${runId} to end`,
    () => ok('status', { runId }),
    (state) => state.execution !== 'RUNNING',
    120_000,
  );
  expect(done).toMatchObject({ status: 'succeeded', startedBy: AGENT });
  const audit = await ok('audit', { runId });
  expect(audit.admission).toMatchObject({ starter: { by: AGENT, verified: true } });
}, 300_000);
