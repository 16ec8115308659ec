// The activities as Temporal runs them: a real dev server, an in-process tideline worker (encrypted
// data converter, the worker's own client resolver) and the local cloud over real HTTP. The fixture
// workflows apply the policy table of workflows/activity-policies.ts, so retries, Retry-After,
// create-or-adopt, wait deadlines and history cost are those a runbook gets.
import { randomBytes } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import type { CloudCaller, CloudClientResolver } from '../../activities/deps';
import type { CloudClient } from '../../cloud/client';
import type { ActionName } from '../../cloud/operations';
import { createCloudClientResolver } from '../../worker/cloud-clients';
import { createDataConverter, EncryptionCodec } from '../../worker/codec';
import { loadWorkerConfig } from '../../worker/config';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import type { StatsView } from '../../local-cloud/stats';
import { createTidelineWorker, type TidelineWorker } from '../../worker/worker';
import { cloudApiClient, cloudWorkerEnv, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { rejectionOf } from '../helpers/rejection';
import { expectSecretsNotStored, readStoredHistory } from '../helpers/stored-history';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server';
import type { ProvisionResult, WaitWorkflowInput } from './fixtures/platform-workflows';

const keyRing = new EncryptionKeyRing([{ id: 'platform-test', key: randomBytes(32) }]);
const taskQueue = `platform-${randomBytes(4).toString('hex')}`;
/** Lifecycles at a tenth of their default length: a create takes 0.3 s, a resize 0.15 s. */
const TIME_SCALE = 0.1;

let server: TemporalServer;
let connection: Connection;
let workerConnection: NativeConnection;
let tideline: TidelineWorker;
let running: Promise<void>;
let client: Client;
let tc: TestCloud;
let api: CloudClient;
let projectId: string;
/** When the worker's activities sent each request (just before it left). */
const sent: { action: ActionName; at: number }[] = [];

function recording(resolver: CloudClientResolver): CloudClientResolver {
  return {
    forProject(id) {
      const inner = resolver.forProject(id);
      const caller: CloudCaller = {
        call(action, input, options) {
          sent.push({ action, at: Date.now() });
          return inner.call(action, input, options);
        },
      };
      return caller;
    },
  };
}

beforeAll(async () => {
  [server, tc] = await Promise.all([
    startTemporalServer(),
    // A new VPC takes peerings and a READY service has its first snapshot at once: the cases
    // below need both, and no state to watch says when they arrive (no sleeps standing in).
    startTestCloud({ timeScale: TIME_SCALE, durations: { vpcProvisioning: 0, firstSnapshot: 0 } }),
  ]);
  projectId = tc.project.id;
  const config = loadWorkerConfig({
    env: {
      TIDELINE_TASK_QUEUE: taskQueue,
      ...cloudWorkerEnv(tc),
    },
  });
  connection = await Connection.connect({ address: server.address });
  workerConnection = await NativeConnection.connect({ address: server.address });
  tideline = await createTidelineWorker(config, {
    keyRing,
    connection: workerConnection,
    clients: recording(createCloudClientResolver(config.cloud)),
    workflows: { workflowsPath: require.resolve('./fixtures/platform-workflows') },
  });
  running = tideline.run();
  client = new Client({ connection, dataConverter: createDataConverter(keyRing) });
  api = cloudApiClient(tc);
}, 120_000);

afterAll(async () => {
  tideline?.shutdown();
  await running;
  await workerConnection?.close();
  await connection?.close();
  await api?.close();
  await tc?.close();
  await server?.stop();
});

afterEach(() => tc.cloud.clearFaults());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const newId = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const project = () => ({ project_id: projectId });

function run<T>(workflow: string, args: unknown[], workflowId = newId(workflow)): Promise<T> {
  return client.workflow.execute(workflow, { taskQueue, workflowId, args }) as Promise<T>;
}

/** The ApplicationFailure that failed a workflow through its activity. */
async function activityFailureOf(pending: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await rejectionOf(pending, WorkflowFailedError);
  const activity = error.cause;
  if (!(activity instanceof ActivityFailure) || !(activity.cause instanceof ApplicationFailure)) throw error;
  return activity.cause;
}

type ActionStats = StatsView['byAction'][string] | undefined;

/** Answers per status between two snapshots of one action's request counts. */
function answersSince(before: ActionStats, after: ActionStats): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [status, count] of Object.entries(after?.byStatus ?? {})) {
    const added = count - (before?.byStatus[status] ?? 0);
    if (added > 0) delta[status] = added;
  }
  return delta;
}

/** A new service, READY (and so past its first snapshot: firstSnapshot is 0 here). */
async function readyService(name: string): Promise<string> {
  const created = await api.service.create({ ...project(), name });
  const serviceId = created.service_id!;
  for (let i = 0; i < 200; i += 1) {
    if ((await api.service.get({ ...project(), service_id: serviceId })).status === 'READY') return serviceId;
    await sleep(50);
  }
  throw new Error(`service ${name} did not become READY`);
}

describe('create-or-adopt through a real workflow', () => {
  test('apply-then-fail on each create: the retry adopts, and exactly one resource exists', async () => {
    const parent = await readyService('atf-parent');
    const withSnapshot = await readyService('atf-replicated');
    const vpc = await api.vpc.create({
      ...project(),
      name: 'atf-net',
      cidr: '10.40.0.0/16',
      region_code: 'us-east-1',
    });
    const peer = { peer_account_id: '777', peer_region_code: 'us-west-2', peer_vpc_id: 'vpc-777' };

    // Both ways a create can take effect yet look failed: a 5xx answer, or no answer at all.
    const cases = {
      'service.create': {
        mode: 'error',
        input: { ...project(), name: 'atf-service' },
        count: async () => (await api.service.list(project())).filter((s) => s.name === 'atf-service').length,
      },
      'service.fork': {
        mode: 'drop',
        input: { ...project(), service_id: parent, fork_strategy: 'NOW' },
        count: async () =>
          (await api.service.list(project())).filter((s) => s.forked_from?.service_id === parent).length,
      },
      'replicaSet.create': {
        mode: 'error',
        input: {
          ...project(),
          service_id: withSnapshot,
          name: 'atf-readers',
          nodes: 1,
          cpu_millis: 1000,
          memory_gbs: 4,
        },
        count: async () => (await api.replicaSet.list({ ...project(), service_id: withSnapshot })).length,
      },
      'vpc.create': {
        mode: 'drop',
        input: { ...project(), name: 'atf-vpc', cidr: '10.41.0.0/16', region_code: 'us-east-1' },
        count: async () => (await api.vpc.list(project())).filter((v) => v.name === 'atf-vpc').length,
      },
      'peering.create': {
        mode: 'error',
        input: { ...project(), vpc_id: vpc.id!, ...peer },
        count: async () => (await api.peering.list({ ...project(), vpc_id: vpc.id! })).length,
      },
    } as const;
    const actions = Object.keys(cases) as (keyof typeof cases)[];
    tc.cloud.addFaults(
      actions.map((action) => ({
        kind: 'applyThenFail' as const,
        action,
        mode: cases[action].mode,
        times: 1,
      })),
    );

    const before = tc.cloud.stats().byAction;
    const results = await Promise.all(
      actions.map((action) =>
        run<Record<string, unknown>>('callActionWorkflow', [action, cases[action].input]),
      ),
    );
    const after = tc.cloud.stats().byAction;
    const outcome = await Promise.all(
      actions.map(async (action, index) => ({
        action,
        adopted: results[index]?.adopted,
        resources: await cases[action].count(),
        // One create request, answered with the injected failure: the retry created nothing.
        createRequests: answersSince(before[action], after[action]),
      })),
    );
    expect(outcome).toEqual(
      actions.map((action) => ({
        action,
        adopted: true,
        resources: 1,
        createRequests: { [cases[action].mode === 'drop' ? 'dropped' : '500']: 1 },
      })),
    );
  }, 60_000);
});

describe('retries honour the API', () => {
  test('429 with Retry-After: 2 → the retry comes no sooner than 2 s (the read policy alone says 1 s)', async () => {
    const serviceId = await readyService('rate-limited');
    tc.cloud.addFaults({ kind: 'rateLimit', action: 'service.get', retryAfterSeconds: 2, times: 1 });
    const from = sent.length;
    const workflowId = newId('rate-limited');
    const result = await run<{ service_id: string }>(
      'callActionWorkflow',
      ['service.get', { ...project(), service_id: serviceId }],
      workflowId,
    );
    expect(result.service_id).toBe(serviceId);
    const attempts = sent.slice(from).filter((request) => request.action === 'service.get');
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(2_000);
    // Not put off past what the API asked either: the failed attempt told the server to retry in
    // exactly 2 s (the history keeps it on the attempt that followed).
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const retried = (history.events ?? []).flatMap((event) => {
      const started = event.activityTaskStartedEventAttributes;
      return started ? [started] : [];
    });
    expect(retried).toHaveLength(1);
    expect(retried[0]!.attempt).toBe(2);
    const delay = retried[0]!.lastFailure?.applicationFailureInfo?.nextRetryDelay;
    expect({ seconds: Number(delay?.seconds ?? 0), nanos: delay?.nanos ?? 0 }).toEqual({
      seconds: 2,
      nanos: 0,
    });
  }, 60_000);
});

describe('waits', () => {
  test('a wait whose API hangs gives up at its deadline with WAIT_TIMEOUT', async () => {
    const serviceId = await readyService('hung');
    tc.cloud.addFaults({ kind: 'latency', action: 'service.get', ms: 600_000 });
    const request: WaitWorkflowInput = {
      action: 'service.get',
      input: { ...project(), service_id: serviceId },
      until: "result.status == 'PAUSED'",
      timeoutMs: 2_000,
      intervalMs: 200,
    };
    const started = Date.now();
    const failure = await activityFailureOf(run('waitWorkflow', [request]));
    const took = Date.now() - started;
    expect(failure.type).toBe('WAIT_TIMEOUT');
    // The poll hung until the deadline cut it off: its request was given what was left of the
    // 2 s deadline, not the 10 s a poll gets otherwise (nor the hung poll's 10 minutes).
    const cut =
      /after \d+s and \d+ polls; last error: CLOUD_API_TIMEOUT: .*no complete answer within (\d+) ms/.exec(
        failure.message,
      );
    expect(cut).not.toBeNull();
    expect(Number(cut![1])).toBeLessThanOrEqual(request.timeoutMs);
    expect(took).toBeGreaterThanOrEqual(1_900);
  }, 60_000);

  test('a wait stops at once on a terminal state named by failIf', async () => {
    const serviceId = await readyService('shaky');
    tc.cloud.addFaults({ kind: 'outcome', outcome: 'unstable', action: 'service.resize', times: 1 });
    await api.service.resize({ ...project(), service_id: serviceId, cpu_millis: '2000', memory_gbs: '8' });
    const request: WaitWorkflowInput = {
      action: 'service.get',
      input: { ...project(), service_id: serviceId },
      until: "result.status == 'READY'",
      failIf: "result.status == 'UNSTABLE'",
      timeoutMs: 300_000,
      intervalMs: 100,
      maxIntervalMs: 200,
    };
    const failure = await activityFailureOf(run('waitWorkflow', [request]));
    // The failure condition ended it, not the 5-minute deadline (that would be WAIT_TIMEOUT, and
    // past the test's timeout).
    expect(failure.type).toBe('WAIT_FAILED_CONDITION');
    expect(failure.message).toMatch(/status UNSTABLE/);
  }, 60_000);
});

async function eventTypes(workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((event) => temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? '?');
}

describe('provisioning: create + wait READY + set PROD', () => {
  const fastPolls = { pollIntervalMs: 100, maxPollIntervalMs: 200 };

  test('polling adds no history events: a long wait costs what a short one does', async () => {
    const shortId = newId('short');
    const short = await run<ProvisionResult>(
      'provisionWorkflow',
      [projectId, 'short-wait', fastPolls],
      shortId,
    );
    // Twelve failed polls in a row make the second wait several times longer.
    tc.cloud.addFaults({ kind: 'error', action: 'service.get', status: 503, times: 12 });
    const longId = newId('long');
    const long = await run<ProvisionResult>('provisionWorkflow', [projectId, 'long-wait', fastPolls], longId);

    expect(long.polls).toBeGreaterThanOrEqual(13);
    expect(long.polls).toBeGreaterThan(short.polls);
    expect(long.waitedMs).toBeGreaterThan(short.waitedMs + 500);
    const [shortEvents, longEvents] = await Promise.all([eventTypes(shortId), eventTypes(longId)]);
    expect(longEvents).toEqual(shortEvents);
    expect(shortEvents.filter((type) => type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')).toHaveLength(3);
  }, 60_000);

  test('the stored history holds neither the initial password nor the secret key in readable form', async () => {
    const workflowId = newId('provision');
    const result = await run<ProvisionResult>(
      'provisionWorkflow',
      [projectId, 'secretive', fastPolls],
      workflowId,
    );
    const password = result.password!;
    expect(password.length).toBeGreaterThanOrEqual(8);
    const service = await api.service.get({ ...project(), service_id: result.serviceId });
    expect(service).toMatchObject({ status: 'READY', metadata: { environment: 'PROD' } });

    const stored = await readStoredHistory(connection, workflowId);
    const secretKey = tc.project.secret_key;
    expectSecretsNotStored(stored, [password, secretKey]);
    // With the key, the password is there (the create's result); the secret key never is, since
    // credentials reach activities through the worker's configuration only.
    const decoded = await decodeAllPayloads(stored.history);
    expect(decoded.includes(Buffer.from(password))).toBe(true);
    expect(decoded.includes(Buffer.from(secretKey))).toBe(false);
  }, 60_000);
});

/** Every payload of a history, decrypted, concatenated. */
async function decodeAllPayloads(history: temporal.api.history.v1.IHistory): Promise<Buffer> {
  const payloads: Payload[] = [];
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
    const record = value as Record<string, unknown>;
    if (record.data instanceof Uint8Array && record.metadata !== undefined) {
      payloads.push(record as Payload);
      return;
    }
    for (const child of Object.values(record)) visit(child);
  };
  visit(history);
  const decoded = await new EncryptionCodec(keyRing).decode(payloads);
  return Buffer.concat(decoded.map((payload) => Buffer.from(payload.data ?? [])));
}
