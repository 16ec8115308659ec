// The whole way an agent changes PROD through `tideline mcp`, over stdio with the MCP SDK's own
// client against a dev stack whose worker asks a person of group:dba to approve tagging a service
// PROD: the agent lists the tools, plans provision-production-service, rehearses it with the
// pooler rate-limited and reads the rollback in the answer (the real cloud untouched), starts it
// with the plan hash, and finds the run waiting with who must approve and the command. A person
// approves with `tideline approve` signed by their own key; the run finishes, and the audit tool
// shows the agent as the verified starter and the person as the approver counted.
import { mkdirSync, mkdtempSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { publicKeyText } from '../../activities/approval-keys';
import type { PendingApproval } from '../../contract/run-messages';
import { runTideline } from '../helpers/cli-process';
import {
  answerText,
  connectStdioAgent,
  toolCalls,
  writePrivateKey,
  type Structured,
} from '../helpers/mcp-agent';
import { keyPairsFor } from '../helpers/people-keys';
import { compile } from '../helpers/policy-fixtures';
import { createVpc, getService, pollUntil, serviceNames } from '../helpers/runbook-fixtures';
import { RUNBOOKS_DIR, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { buildDist, testKeyRing } from '../helpers/worker-process';

const AGENT = 'mcp:flow';
const keys = keyPairsFor([AGENT, 'alice'] as const);
const RUNBOOK = 'provision-production-service';

describe('an agent plans, rehearses and starts a PROD change; a person approves it', () => {
  let stack: RunbookStack;
  let home: string;
  let agent: Client;
  const { call, ok } = toolCalls(() => agent);

  beforeAll(async () => {
    await buildDist();
    stack = await startRunbookStack(
      { timeScale: 0.05 },
      {
        keyRing: testKeyRing,
        governance: compile({
          policies: [
            {
              name: 'prod-tag-needs-dba',
              when: "step.action == 'service.setEnvironment' && step.with.environment == 'PROD'",
              effect: 'require-approval',
              approvals: { group: 'dba', count: 1 },
            },
          ],
        }),
        approvals: {
          keys: new Map([
            [AGENT, [publicKeyText(keys[AGENT].publicKey)]],
            ['alice', [publicKeyText(keys.alice.publicKey)]],
          ]),
          groups: new Map([['dba', ['alice']]]),
        },
      },
    );
    home = mkdtempSync(path.join(tmpdir(), 'tideline-mcp-flow-'));
    // alice's key where `tideline approve --by alice` finds it.
    const personKeys = path.join(home, '.tideline', 'approval-keys');
    mkdirSync(personKeys, { recursive: true });
    writePrivateKey(path.join(personKeys, 'alice.pem'), keys.alice.privateKey);
    const runbooks = path.join(home, 'runbooks');
    mkdirSync(runbooks);
    copyFileSync(path.join(RUNBOOKS_DIR, `${RUNBOOK}.yaml`), path.join(runbooks, 'provision.yaml'));
    agent = await connectStdioAgent({
      stack,
      runbooks,
      agent: AGENT,
      key: keys[AGENT].privateKey,
      home,
      // The Cloud API the rehearse tool copies the named resources from.
      env: {
        TIDELINE_CLOUD_URL: stack.cloud.url,
        TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
        TIDELINE_CLOUD_PROJECT_ID: stack.projectId,
        TIDELINE_CLOUD_ACCESS_KEY: stack.cloud.project.access_key,
        TIDELINE_CLOUD_SECRET_KEY: stack.cloud.project.secret_key,
      },
    });
  }, 240_000);

  afterAll(async () => {
    await agent?.close();
    await stack?.close();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  test('plan, rehearse with a fault, start with the hash, a person’s signed approval, the audit', async () => {
    const names = (await agent.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['plan', 'rehearse', 'start', 'list_waiting_approvals', 'audit']),
    );
    expect(names).not.toContain('approve');

    const vpcId = await createVpc(stack, { name: 'flow', cidr: '10.9.0.0/16' });
    const inputs = { project_id: stack.projectId, name: 'flow-orders', vpc_id: vpcId };
    const plan = await ok('plan', { runbook: RUNBOOK, inputs });
    expect(plan.planHash).toMatch(/^sha256:[0-9a-f]{64}$/);

    const rehearsal = await call('rehearse', {
      runbook: RUNBOOK,
      inputs,
      faults: [{ operation: 'service.enablePooler', kind: 'rateLimit', retryAfterSeconds: 0 }],
    });
    expect(rehearsal.isError ?? false).toBe(false);
    expect(rehearsal.structuredContent).toMatchObject({
      status: 'failed',
      failure: { stepKey: 'pooler' },
      planHash: plan.planHash,
      startingCloud: { vpcs: [expect.objectContaining({ name: 'flow' })] },
      compensations: expect.arrayContaining([
        { key: 'create/undo.delete_service', undoes: 'create', status: 'done' },
      ]),
    });
    expect(answerText(rehearsal)).toMatch(/undone by compensation:\n {2}create\/undo\.delete_service/);
    expect(await serviceNames(stack)).not.toContain('flow-orders');

    const started = await ok('start', { runbook: RUNBOOK, inputs, planHash: plan.planHash });
    expect(started).toMatchObject({ runbook: RUNBOOK, startedBy: AGENT });
    const runId = started.runId as string;

    const waiting = await pollUntil(
      'the run among those waiting for approval',
      () => call('list_waiting_approvals', {}),
      (answer) =>
        ((answer.structuredContent as Structured).waiting as { runId: string }[]).some(
          (entry) => entry.runId === runId,
        ),
      120_000,
    );
    const entry = (
      (waiting.structuredContent as Structured).waiting as {
        runId: string;
        approval: PendingApproval;
      }[]
    ).find((candidate) => candidate.runId === runId)!;
    expect(entry.approval).toMatchObject({ approvers: ['group:dba'] });
    const { stepKey } = entry.approval;
    expect(stepKey).toMatch(/^prod\.policy\.prod-tag-needs-dba/);
    const command = `tideline approve ${runId} --step ${stepKey} --by NAME`;
    expect(answerText(waiting)).toContain('who: 1 of group:dba');
    expect(answerText(waiting)).toContain(command);
    expect(answerText(await call('status', { runId }))).toContain(command);

    const approved = await runTideline(
      ['approve', runId, '--step', stepKey, '--by', 'alice', '--address', stack.server.address],
      { env: { HOME: home } },
    );
    expect({ code: approved.code, stderr: approved.stderr }).toMatchObject({ code: 0 });

    const done = await pollUntil(
      `run ${runId} to end`,
      () => ok('status', { runId }),
      (state) => state.execution !== 'RUNNING',
      120_000,
    );
    expect(done).toMatchObject({ status: 'succeeded', startedBy: AGENT });
    const serviceId = (done.outputs as Structured).service_id as string;
    expect((await getService(stack, serviceId)).metadata?.environment).toBe('PROD');

    const audit = await ok('audit', { runId });
    expect(audit.admission).toMatchObject({ starter: { by: AGENT, verified: true } });
    expect(audit.approvals).toEqual([
      expect.objectContaining({
        by: 'alice',
        accepted: true,
        stepKey,
        via: 'group:dba',
        keyId: expect.any(String),
      }),
    ]);
  }, 300_000);
});
