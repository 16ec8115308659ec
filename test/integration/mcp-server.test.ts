// `tideline mcp` (mcp/server.ts) as an agent meets it: the real binary over stdio, driven by the
// MCP SDK's own client, against a dev stack (Temporal dev server, local cloud, worker). In the
// operate profile it lists its tools, plans provision-production-service, refuses a start whose
// plan hash a changed input made stale (answering with the new plan), starts with the right hash
// and reads the run to its end. The agent's identity (`mcp:itest`, its key registered with the
// worker and even listed as an approver) cannot satisfy an approval however it reaches Temporal: a
// raw signed decision is refused with APPROVAL_AGENT and audited (`tideline audit` shows it, and
// the agent as verified starter), an unsigned one is rejected; a person's decision goes through.
// The agent cancels its own run, never another's. Its rehearsal's scripted approval of a step
// needing two of the people listed is answered by the rehearsal's stand-ins: approved, the
// rehearsal succeeds; rejected, it fails there. Over Streamable HTTP a bearer token is required,
// and a web page's request (a foreign Host and Origin, as DNS rebinding sends them) is refused.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { publicKeyText } from '../../activities/approval-keys';
import { signDecision } from '../../activities/approval-signatures';
import { approvalUpdate, progressQuery } from '../../contract/run-messages';
import { jsonOutput, runTideline, startCli } from '../helpers/cli-process';
import {
  answerText,
  connectStdioAgent,
  HTTP_ENDPOINT,
  tokenlessStatus,
  toolCalls,
  type Structured,
} from '../helpers/mcp-agent';
import { keyPairsFor } from '../helpers/people-keys';
import { rawHttp } from '../helpers/raw-http';
import { createVpc, pollUntil, seedService } from '../helpers/runbook-fixtures';
import { RUNBOOKS_DIR, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { buildDist, REPO_ROOT, testKeyRing } from '../helpers/worker-process';

const AGENT = 'mcp:itest';
const keys = keyPairsFor([AGENT, 'alice'] as const);
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');

describe('tideline mcp over stdio against a dev stack', () => {
  let stack: RunbookStack;
  let dir: string;
  let agent: Client;

  beforeAll(async () => {
    await buildDist();
    stack = await startRunbookStack(
      { timeScale: 0.05 },
      {
        keyRing: testKeyRing,
        approvals: {
          keys: new Map([
            [AGENT, [publicKeyText(keys[AGENT].publicKey)]],
            ['alice', [publicKeyText(keys.alice.publicKey)]],
          ]),
          // Listing the agent (here through a group) must not let it approve.
          groups: new Map([['dba', ['alice', AGENT]]]),
        },
      },
    );
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-mcp-'));
    const runbooks = path.join(dir, 'runbooks');
    mkdirSync(runbooks);
    copyFileSync(
      path.join(RUNBOOKS_DIR, 'provision-production-service.yaml'),
      path.join(runbooks, 'provision.yaml'),
    );
    copyFileSync(
      path.join(FIXTURES, 'approvals', 'promote-to-prod.yaml'),
      path.join(runbooks, 'promote.yaml'),
    );
    copyFileSync(path.join(FIXTURES, 'cli', 'gate.yaml'), path.join(runbooks, 'gate.yaml'));
    copyFileSync(
      path.join(FIXTURES, 'approvals', 'two-people-gate.yaml'),
      path.join(runbooks, 'two-people-gate.yaml'),
    );
    agent = await connectStdioAgent({
      stack,
      runbooks,
      agent: AGENT,
      key: keys[AGENT].privateKey,
      home: dir,
    });
  }, 240_000);

  afterAll(async () => {
    await agent?.close();
    await stack?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const { call, ok } = toolCalls(() => agent);
  const statusOf = (runId: string) => ok('status', { runId });
  const until = (runId: string, what: string, done: (state: Structured) => boolean) =>
    pollUntil(`run ${runId} ${what}`, () => statusOf(runId), done, 60_000);

  test('lists the operate tools: start and cancel besides the read-only ones, no approve', async () => {
    const names = (await agent.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(
      [
        'audit',
        'cancel',
        'describe_runbook',
        'history',
        'list_runbooks',
        'list_waiting_approvals',
        'plan',
        'rehearse',
        'start',
        'status',
      ].sort(),
    );
  });

  test('plans provision-production-service, refuses a stale hash with the new plan, starts with the right one', async () => {
    const vpcId = await createVpc(stack, { name: 'mcp', cidr: '10.7.0.0/16' });
    const inputs = { project_id: stack.projectId, name: 'mcp-orders', vpc_id: vpcId };
    const plan = await ok('plan', { runbook: 'provision-production-service', inputs });
    expect(plan.planHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const planText = (
      (await call('plan', { runbook: 'provision-production-service', inputs })).content[0] as {
        text: string;
      }
    ).text;
    expect(planText).toContain('POST /projects/');

    const changed = { ...inputs, name: 'mcp-orders-2' };
    const stale = await call('start', {
      runbook: 'provision-production-service',
      inputs: changed,
      planHash: plan.planHash,
    });
    expect(stale.isError).toBe(true);
    expect(stale.structuredContent).toMatchObject({ code: 'MCP_PLAN_CHANGED' });
    const newHash = (stale.structuredContent as Structured).planHash;
    expect(newHash).toMatch(/^sha256:/);
    expect(newHash).not.toBe(plan.planHash);
    expect(JSON.stringify(stale.content)).toContain('mcp-orders-2');

    const started = await ok('start', {
      runbook: 'provision-production-service',
      inputs,
      planHash: plan.planHash,
    });
    expect(started).toMatchObject({ runbook: 'provision-production-service', startedBy: AGENT });
    const runId = started.runId as string;
    const done = await until(runId, 'to end', (state) => state.execution !== 'RUNNING');
    expect(done).toMatchObject({ status: 'succeeded', startedBy: AGENT });
    expect(done.outputs).toMatchObject({ service_id: expect.any(String) });
    // The worker verified the agent's signed start.
    const progress = await stack.client.workflow.getHandle(runId).query(progressQuery);
    expect(progress.admission?.starter).toMatchObject({ by: AGENT, verified: true });
    // The history tool answers the run's step timeline.
    const history = await ok('history', { runId });
    expect(history).toMatchObject({ workflowId: runId, status: 'succeeded' });
  });

  test('an agent identity cannot approve, even with a raw signed decision; it cancels its own run', async () => {
    const service = await seedService(stack, { name: 'mcp-ledger' });
    const inputs = { project_id: stack.projectId, service_id: service.service_id };
    const { planHash } = await ok('plan', { runbook: 'promote-to-prod', inputs });
    const { runId } = (await ok('start', { runbook: 'promote-to-prod', inputs, planHash })) as {
      runId: string;
    };
    const waiting = await pollUntil(
      'the run among those waiting for approval',
      () => ok('list_waiting_approvals', {}),
      (answer) => (answer.waiting as { runId: string }[]).some((entry) => entry.runId === runId),
      30_000,
    );
    expect(waiting.waiting).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ runId, approval: expect.objectContaining({ stepKey: 'sign_off' }) }),
      ]),
    );

    const handle = stack.client.workflow.getHandle(runId);
    const pending = (await handle.query(progressQuery)).pendingApproval;
    const temporalRunId = (await handle.describe()).runId;
    const signature = signDecision(keys[AGENT].privateKey, {
      workflowId: runId,
      runId: temporalRunId,
      stepKey: 'sign_off',
      approved: true,
      by: AGENT,
      ...(pending?.plan !== undefined && { plan: pending.plan }),
    });
    const outcome = await handle.executeUpdate(approvalUpdate, {
      args: [{ approved: true, step: 'sign_off', by: AGENT, signature }],
    });
    expect(outcome.refused).toMatchObject({ code: 'APPROVAL_AGENT' });
    const audit = (await handle.query(progressQuery)).approvals ?? [];
    expect(audit).toEqual([expect.objectContaining({ by: AGENT, accepted: false, code: 'APPROVAL_AGENT' })]);
    // `tideline audit` shows the agent as the verified starter, and its refused decision.
    const audited = jsonOutput<{ admission: unknown; approvals: unknown[] }>(
      await runTideline(['audit', runId, '--json', '--address', stack.server.address]),
    );
    expect(audited.admission).toMatchObject({ starter: { by: AGENT, verified: true } });
    expect(audited.approvals).toEqual([expect.objectContaining({ by: AGENT, code: 'APPROVAL_AGENT' })]);
    // The audit tool answers the same trail.
    const toolAudit = await ok('audit', { runId });
    expect(toolAudit.admission).toEqual(audited.admission);
    expect(toolAudit.approvals).toEqual(audited.approvals);

    // The agent cancels its own run.
    await ok('cancel', { runId });
    expect(await until(runId, 'to end', (state) => state.execution !== 'RUNNING')).toMatchObject({
      execution: 'CANCELLED',
    });
  });

  test('an unsigned agent decision on a step without approvers is rejected; a person’s is taken', async () => {
    const { planHash } = await ok('plan', { runbook: 'cli-gate', inputs: {} });
    const { runId } = (await ok('start', { runbook: 'cli-gate', inputs: {}, planHash })) as { runId: string };
    await until(runId, 'to wait for approval', (state) => state.pendingApproval !== undefined);
    const handle = stack.client.workflow.getHandle(runId);
    await expect(
      handle.executeUpdate(approvalUpdate, { args: [{ approved: true, by: 'MCP:itest' }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/agents never approve/) } });
    await handle.executeUpdate(approvalUpdate, { args: [{ approved: true, by: 'alice' }] });
    expect(await until(runId, 'to succeed', (state) => state.execution !== 'RUNNING')).toMatchObject({
      status: 'succeeded',
    });
  });

  test('a rehearsal’s scripted approval counts on a step with approvers: its stand-ins meet the quorum', async () => {
    // sign_off needs both alice and bob: the rehearsal's own worker lets its stand-ins decide.
    const approved = await call('rehearse', {
      runbook: 'two-people-gate',
      inputs: {},
      approvals: [{ step: 'sign_off', decision: 'approve' }],
    });
    expect(approved.structuredContent).toMatchObject({ status: 'succeeded' });
    expect(answerText(approved)).toContain('sign_off: done');
    expect(answerText(approved)).not.toContain('rehearse again');
    const rejected = await ok('rehearse', {
      runbook: 'two-people-gate',
      inputs: {},
      approvals: [{ step: 'sign_off', decision: 'reject' }],
    });
    expect(rejected).toMatchObject({ status: 'failed', failure: { stepKey: 'sign_off' } });
  }, 240_000);

  test('cancels only the runs this agent started', async () => {
    const handle = await stack.start(path.join(FIXTURES, 'cli', 'gate.yaml'), {});
    const refused = await call('cancel', { runId: handle.workflowId });
    expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'MCP_NOT_AGENTS_RUN' } });
    await handle.cancel();
  });

  test('over Streamable HTTP on 127.0.0.1, every request needs the bearer token and its own Host', async () => {
    const token = 'mcp-integration-token-0123456789';
    const server = startCli(
      ['mcp', '--runbooks', path.join(dir, 'runbooks'), '--http', '0', '--address', stack.server.address],
      { env: { HOME: dir, TIDELINE_MCP_TOKEN: token } },
    );
    try {
      const line = await server.waitForStdout(HTTP_ENDPOINT);
      const url = new URL(HTTP_ENDPOINT.exec(line)![0]);
      expect(line).toContain('token from TIDELINE_MCP_TOKEN');
      expect(line).not.toContain(token);
      expect(await tokenlessStatus(url)).toBe(401);
      // DNS rebinding: a page of evil.example, its name now resolving to 127.0.0.1, token and all.
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'Page', version: '1' },
        },
      });
      const rebound = await rawHttp(
        url.origin,
        `POST /mcp HTTP/1.0\r\nHost: evil.example:${url.port}\r\nOrigin: http://evil.example:${url.port}\r\n` +
          `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(rebound.status).toBe(403);
      expect(rebound.headers['mcp-session-id']).toBeUndefined();
      expect(rebound.body).toMatchObject({ error: { message: expect.stringContaining('evil.example') } });
      const client = new Client({ name: 'HTTP Test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('plan');
      expect(names).not.toContain('start');
      const plan = await client.callTool({ name: 'plan', arguments: { runbook: 'cli-gate', inputs: {} } });
      expect(plan.structuredContent).toMatchObject({ planHash: expect.stringMatching(/^sha256:/) });
      await client.close();
    } finally {
      server.signal('SIGTERM');
      expect((await server.done).code).toBe(0);
    }
    const badOrigin = await runTideline(
      ['mcp', '--runbooks', path.join(dir, 'runbooks'), '--http', '0', '--allow-origin', 'localhost:6274'],
      { env: { HOME: dir, TIDELINE_MCP_TOKEN: token } },
    );
    expect(badOrigin.code).toBe(2);
    expect(badOrigin.stderr).toContain('--allow-origin: "localhost:6274" is not an origin');
    expect(badOrigin.stderr).not.toMatch(/\n\s+at /);
  });
});
