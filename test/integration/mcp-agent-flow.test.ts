// The whole way an agent changes PROD through `tideline mcp`, over stdio and over Streamable HTTP
// (where a request without the bearer token is refused) with the MCP SDK's own client, against a
// dev stack whose worker asks a person of group:dba to approve tagging a service
// PROD: the agent lists the tools, plans provision-production-service, rehearses it with the
// pooler rate-limited and reads the rollback in the answer (the real cloud untouched), starts it
// with the plan hash, and finds the run waiting with who must approve and the command. A person
// approves with `tideline approve` signed by their own key; the run finishes, and the audit tool
// shows the agent as the verified starter and the person as the approver counted.
import { mkdirSync, mkdtempSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { publicKeyText } from '../../activities/approval-keys';
import type { PendingApproval } from '../../contract/run-messages';
import { runTideline } from '../helpers/cli-process';
import {
  answerText,
  connectAgent,
  tokenlessStatus,
  toolCalls,
  writePrivateKey,
  type AgentTransport,
  type ConnectedAgent,
  type Structured,
} from '../helpers/mcp-agent';
import { keyPairsFor } from '../helpers/people-keys';
import { compile } from '../helpers/policy-fixtures';
import { createVpc, getService, pollUntil, serviceNames } from '../helpers/runbook-fixtures';
import { RUNBOOKS_DIR, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { buildDist, testKeyRing } from '../helpers/worker-process';

const AGENTS = { stdio: 'mcp:flow', 'Streamable HTTP': 'mcp:flow-http' } as const;
const keys = keyPairsFor([AGENTS.stdio, AGENTS['Streamable HTTP'], 'alice'] as const);
const RUNBOOK = 'provision-production-service';

describe('an agent plans, rehearses and starts a PROD change; a person approves it', () => {
  let stack: RunbookStack;
  let home: string;
  let runbooks: string;
  let connected: ConnectedAgent | undefined;
  const { call, ok } = toolCalls(() => connected!.client);

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
            ...Object.values(AGENTS).map(
              (agent) => [agent, [publicKeyText(keys[agent].publicKey)]] as [string, string[]],
            ),
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
    runbooks = path.join(home, 'runbooks');
    mkdirSync(runbooks);
    copyFileSync(path.join(RUNBOOKS_DIR, `${RUNBOOK}.yaml`), path.join(runbooks, 'provision.yaml'));
  }, 240_000);

  afterEach(async () => {
    await connected?.close();
    connected = undefined;
  });

  afterAll(async () => {
    await stack?.close();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  test.each(Object.keys(AGENTS) as AgentTransport[])(
    'over %s: plan, rehearse with a fault, start with the hash, a person’s signed approval, the audit',
    async (transport) => {
      const AGENT = AGENTS[transport];
      const name = transport === 'stdio' ? 'flow' : 'flow-http';
      connected = await connectAgent(transport, {
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
      if (transport === 'stdio') {
        expect(connected.url).toBeUndefined();
      } else {
        // Every request needs the token: a client without it is refused before any tool runs.
        expect(connected.url).toBeInstanceOf(URL);
        expect(await tokenlessStatus(connected.url!)).toBe(401);
      }
      const names = (await connected.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining(['plan', 'rehearse', 'start', 'list_waiting_approvals', 'audit']),
      );
      expect(names).not.toContain('approve');

      const vpcId = await createVpc(stack, {
        name,
        cidr: transport === 'stdio' ? '10.9.0.0/16' : '10.10.0.0/16',
      });
      const inputs = { project_id: stack.projectId, name: `${name}-orders`, vpc_id: vpcId };
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
        startingCloud: { vpcs: [expect.objectContaining({ name })] },
        compensations: expect.arrayContaining([
          { key: 'create/undo.delete_service', undoes: 'create', status: 'done' },
        ]),
      });
      expect(answerText(rehearsal)).toMatch(/undone by compensation:\n {2}create\/undo\.delete_service/);
      expect(await serviceNames(stack)).not.toContain(inputs.name);

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

      // A person approves in two steps: the plan and its fingerprint, then that fingerprint.
      const words = ['approve', runId, '--step', stepKey, '--by', 'alice', '--address', stack.server.address];
      const read = await runTideline(words, { env: { HOME: home } });
      expect(read.stderr).toContain('nothing was signed');
      const fingerprint = /^plan fingerprint: ([0-9a-f]{16})$/m.exec(read.stdout)?.[1] ?? '';
      const approved = await runTideline([...words, '--plan', fingerprint], { env: { HOME: home } });
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
    },
    300_000,
  );
});
