// Every action activity against the local cloud over real HTTP, run in the SDK's mock activity
// context with the real typed client: each of the catalogue's actions once with success, then each
// error class, whose failure `type` must be the stable CLOUD_API_* code with the right retryability.
// (The client against the local cloud is in local-cloud-api-conformance-*.test.ts; this file tests the activity layer on top.)
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities, type ActionActivities } from '../../activities';
import type { CloudCaller } from '../../activities/deps';
import { ACTION_NAMES, operations, type ActionName } from '../../cloud/operations';
import { startConformanceCloud, type ConformanceCloud } from '../helpers/api-conformance-fixtures';
import { rejectionOf } from '../helpers/rejection';

let fx: ConformanceCloud;
let activities: ActionActivities;
let project: { project_id: string };
/** Projects the activities asked a client for: credentials are chosen by the input's project. */
const askedFor: (string | undefined)[] = [];

function activitiesWith(client: CloudCaller): ActionActivities {
  return createActivities({
    clients: {
      forProject: (projectId) => {
        askedFor.push(projectId);
        return client;
      },
    },
  });
}

beforeAll(async () => {
  fx = await startConformanceCloud();
  project = { project_id: fx.projectId };
  activities = activitiesWith(fx.client);
});
afterAll(() => fx.close());

const quiet = { logger: new DefaultLogger('ERROR') };

function runActivity(
  action: ActionName,
  input: Record<string, unknown>,
  options: { attempt?: number; adoptExisting?: boolean; via?: ActionActivities; isLocal?: boolean } = {},
): Promise<unknown> {
  const env = new MockActivityEnvironment(
    { attempt: options.attempt ?? 1, isLocal: options.isLocal ?? false },
    quiet,
  );
  const args =
    options.adoptExisting === undefined ? { input } : { input, adoptExisting: options.adoptExisting };
  return env.run((options.via ?? activities)[action], args);
}

/** Awaits an activity that must fail and returns its ApplicationFailure. */
const failureOf = (pending: Promise<unknown>) => rejectionOf(pending, ApplicationFailure);

function peer(account: string) {
  return { peer_account_id: account, peer_region_code: 'us-west-2', peer_vpc_id: `vpc-${account}` };
}

interface SuccessCase {
  input: Record<string, unknown>;
  /** Checks the activity's result against the cloud. */
  check(result: unknown): Promise<void> | void;
}

const message = { message: expect.any(String) };
const service = (id: string) => fx.getService(id);

// Keyed by action name, so a new catalogue action without a case fails the type check.
const successCases: { readonly [A in ActionName]: () => Promise<SuccessCase> } = {
  'auth.info': async () => ({
    input: {},
    check: (result) =>
      expect(result).toMatchObject({ type: 'apiKey', apiKey: { project: { id: fx.projectId } } }),
  }),
  'project.list': async () => ({
    input: {},
    check: (result) => expect(result).toEqual([{ id: fx.projectId, name: fx.tc.project.name }]),
  }),
  'vpc.list': async () => {
    const vpc = await fx.readyVpc('listed');
    return { input: project, check: (result) => expect(result).toContainEqual(vpc) };
  },
  'vpc.create': async () => ({
    input: { ...project, name: 'made-by-activity', cidr: '10.9.0.0/16', region_code: 'eu-west-1' },
    check: async (result) => {
      const vpcs = await fx.client.vpc.list(project);
      expect(vpcs.filter((v) => v.name === 'made-by-activity')).toEqual([result]);
    },
  }),
  'vpc.get': async () => {
    const vpc = await fx.readyVpc('fetched');
    return { input: { ...project, vpc_id: vpc.id }, check: (result) => expect(result).toEqual(vpc) };
  },
  'vpc.delete': async () => {
    const vpc = await fx.readyVpc('doomed');
    return {
      input: { ...project, vpc_id: vpc.id },
      check: async (result) => {
        expect(result).toEqual({});
        expect((await fx.client.vpc.list(project)).map((v) => v.id)).not.toContain(vpc.id);
      },
    };
  },
  'vpc.rename': async () => {
    const vpc = await fx.readyVpc('old-name');
    return {
      input: { ...project, vpc_id: vpc.id, name: 'new-name' },
      check: async (result) => {
        expect(result).toEqual({ ...vpc, name: 'new-name' });
        expect(await fx.client.vpc.get({ ...project, vpc_id: vpc.id })).toEqual(result);
      },
    };
  },
  'peering.list': async () => {
    const { id: vpc_id } = await fx.readyVpc();
    const peering = await fx.client.peering.create({ ...project, vpc_id, ...peer('101') });
    return { input: { ...project, vpc_id }, check: (result) => expect(result).toEqual([peering]) };
  },
  'peering.create': async () => {
    const { id: vpc_id } = await fx.readyVpc();
    return {
      input: { ...project, vpc_id, ...peer('202') },
      check: async (result) => {
        expect(result).toMatchObject({ ...peer('202'), status: 'pending' });
        expect(await fx.client.peering.list({ ...project, vpc_id })).toEqual([result]);
      },
    };
  },
  'peering.get': async () => {
    const { id: vpc_id } = await fx.readyVpc();
    const peering = await fx.client.peering.create({ ...project, vpc_id, ...peer('303') });
    return {
      input: { ...project, vpc_id, peering_id: peering.id },
      check: (result) => expect(result).toEqual(peering),
    };
  },
  'peering.delete': async () => {
    const { id: vpc_id } = await fx.readyVpc();
    const peering = await fx.client.peering.create({ ...project, vpc_id, ...peer('404') });
    return {
      input: { ...project, vpc_id, peering_id: peering.id },
      check: async (result) => {
        expect(result).toEqual({});
        expect(await fx.client.peering.list({ ...project, vpc_id })).toEqual([]);
      },
    };
  },
  'service.list': async () => {
    const service_id = await fx.readyService('listed');
    return {
      input: project,
      check: (result) =>
        expect((result as { service_id: string }[]).map((s) => s.service_id)).toContain(service_id),
    };
  },
  'service.create': async () => ({
    input: { ...project, name: 'made-by-activity', cpu_millis: '1000', memory_gbs: '4' },
    check: async (result) => {
      expect(result).toMatchObject({
        name: 'made-by-activity',
        status: 'QUEUED',
        initial_password: expect.any(String),
      });
      expect(result).not.toHaveProperty('adopted');
      const services = await fx.client.service.list(project);
      expect(services.filter((s) => s.name === 'made-by-activity')).toHaveLength(1);
    },
  }),
  'service.get': async () => {
    const service_id = await fx.readyService('fetched');
    return {
      input: { ...project, service_id },
      check: async (result) => expect(result).toEqual(await service(service_id)),
    };
  },
  'service.delete': async () => {
    const service_id = await fx.readyService('doomed');
    return {
      input: { ...project, service_id },
      check: async (result) => {
        expect(result).toEqual({});
        expect((await service(service_id)).status).toBe('DELETING');
      },
    };
  },
  'service.start': async () => {
    const service_id = await fx.readyService('sleeper');
    await fx.client.service.stop({ ...project, service_id });
    fx.settle();
    return {
      input: { ...project, service_id },
      check: (result) => expect(result).toMatchObject({ service_id, status: 'RESUMING' }),
    };
  },
  'service.stop': async () => {
    const service_id = await fx.readyService('stopper');
    return {
      input: { ...project, service_id },
      check: (result) => expect(result).toMatchObject({ service_id, status: 'PAUSING' }),
    };
  },
  'service.attachToVpc': async () => {
    const service_id = await fx.readyService('joiner');
    const vpc = await fx.readyVpc();
    return {
      input: { ...project, service_id, vpc_id: vpc.id },
      check: async (result) => {
        expect(result).toEqual(message);
        fx.settle();
        expect((await service(service_id)).vpcEndpoint?.vpc_id).toBe(vpc.id);
      },
    };
  },
  'service.detachFromVpc': async () => {
    const service_id = await fx.readyService('leaver');
    const vpc = await fx.readyVpc();
    await fx.client.service.attachToVpc({ ...project, service_id, vpc_id: vpc.id });
    fx.settle();
    return {
      input: { ...project, service_id, vpc_id: vpc.id },
      check: async (result) => {
        expect(result).toEqual(message);
        fx.settle();
        expect((await service(service_id)).vpcEndpoint).toBeUndefined();
      },
    };
  },
  'service.resize': async () => {
    const service_id = await fx.readyService('grower');
    return {
      input: { ...project, service_id, cpu_millis: '2000', memory_gbs: '8' },
      check: async (result) => {
        expect(result).toMatchObject({ service_id, status: 'CONFIGURING' });
        fx.settle();
        expect((await service(service_id)).resources?.[0]?.spec).toMatchObject({ cpu_millis: 2000 });
      },
    };
  },
  'service.enablePooler': async () => {
    const service_id = await fx.readyService('pooled');
    return {
      input: { ...project, service_id },
      check: async (result) => {
        expect(result).toEqual(message);
        fx.settle();
        expect((await service(service_id)).connection_pooler?.endpoint).toBeDefined();
      },
    };
  },
  'service.disablePooler': async () => {
    const service_id = await fx.readyService('unpooled');
    await fx.client.service.enablePooler({ ...project, service_id });
    fx.settle();
    return {
      input: { ...project, service_id },
      check: async (result) => {
        expect(result).toEqual(message);
        fx.settle();
        expect((await service(service_id)).connection_pooler?.endpoint).toBeUndefined();
      },
    };
  },
  'service.fork': async () => {
    const parent = await fx.readyService('parent');
    return {
      input: { ...project, service_id: parent, fork_strategy: 'NOW' },
      check: async (result) => {
        expect(result).toMatchObject({ name: 'parent-fork', forked_from: { service_id: parent } });
        expect(result).not.toHaveProperty('adopted');
        const services = await fx.client.service.list(project);
        expect(services.filter((s) => s.forked_from?.service_id === parent)).toHaveLength(1);
      },
    };
  },
  'service.updatePassword': async () => {
    const service_id = await fx.readyService('rotated');
    return {
      input: { ...project, service_id, password: 'a-new-Passw0rd' },
      check: (result) => expect(result).toEqual({}),
    };
  },
  'service.setEnvironment': async () => {
    const service_id = await fx.readyService('promoted');
    return {
      input: { ...project, service_id, environment: 'PROD' },
      check: async (result) => {
        expect(result).toEqual(message);
        expect((await service(service_id)).metadata).toEqual({ environment: 'PROD' });
      },
    };
  },
  'service.rename': async () => {
    const service_id = await fx.readyService('before');
    return {
      input: { ...project, service_id, name: 'after' },
      check: async (result) => {
        expect(result).toMatchObject({ service_id, name: 'after' });
        expect((await service(service_id)).name).toBe('after');
      },
    };
  },
  'service.logs': async () => {
    const service_id = await fx.readyService('chatty');
    return {
      input: { ...project, service_id },
      check: (result) => expect((result as { logs: string[] }).logs.length).toBeGreaterThan(0),
    };
  },
  'service.metricsAvailableSeries': async () => {
    const service_id = await fx.readyService('measured');
    return {
      input: { ...project, service_id },
      check: (result) => expect(result).toContain('timescale_cloud_system_cpu_usage_millicores'),
    };
  },
  'service.metricsSeries': async () => {
    const service_id = await fx.readyService('measured-series');
    const created = Date.parse((await service(service_id)).created!);
    return {
      input: {
        ...project,
        service_id,
        name: 'timescale_cloud_system_cpu_total_millicores',
        from: new Date(created - 600_000).toISOString(),
        to: new Date(created + 3_600_000).toISOString(),
      },
      check: (result) =>
        expect(result).toEqual([
          {
            labels: { role: 'primary', ordinal: '0' },
            data: expect.arrayContaining([{ time: expect.any(String), value: 500 }]),
          },
        ]),
    };
  },
  'service.setHA': async () => {
    const service_id = await fx.readyService('replicated');
    return {
      input: { ...project, service_id, replica_count: 1 },
      check: async (result) => {
        expect(result).toMatchObject({ service_id, status: 'CONFIGURING' });
        fx.settle();
        expect((await service(service_id)).ha_replicas?.replica_count).toBe(1);
      },
    };
  },
  'replicaSet.list': async () => {
    const { serviceId: service_id, setId } = await fx.activeReplicaSet();
    return {
      input: { ...project, service_id },
      check: (result) => expect(result).toEqual([expect.objectContaining({ id: setId, status: 'active' })]),
    };
  },
  'replicaSet.create': async () => {
    const service_id = await fx.readyService('reads', true);
    return {
      input: { ...project, service_id, name: 'analytics', nodes: 1, cpu_millis: 1000, memory_gbs: 4 },
      check: async (result) => {
        expect(result).toMatchObject({ name: 'analytics', status: 'creating' });
        expect(result).not.toHaveProperty('adopted');
        expect(await fx.client.replicaSet.list({ ...project, service_id })).toEqual([result]);
      },
    };
  },
  'replicaSet.delete': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    return {
      input: { ...project, service_id, replica_set_id },
      check: async (result) => {
        expect(result).toEqual({});
        expect(await fx.replicaSet(service_id, replica_set_id)).toMatchObject({ status: 'deleting' });
      },
    };
  },
  'replicaSet.resize': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    return {
      input: { ...project, service_id, replica_set_id, cpu_millis: '2000', memory_gbs: '8' },
      check: async (result) => {
        expect(result).toEqual({});
        expect(await fx.replicaSet(service_id, replica_set_id)).toMatchObject({ status: 'resizing' });
      },
    };
  },
  'replicaSet.enablePooler': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    return {
      input: { ...project, service_id, replica_set_id },
      check: async (result) => {
        expect(result).toEqual(message);
        expect((await fx.replicaSet(service_id, replica_set_id))?.connection_pooler?.endpoint).toBeDefined();
      },
    };
  },
  'replicaSet.disablePooler': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    await fx.client.replicaSet.enablePooler({ ...project, service_id, replica_set_id });
    return {
      input: { ...project, service_id, replica_set_id },
      check: async (result) => {
        expect(result).toEqual(message);
        expect(
          (await fx.replicaSet(service_id, replica_set_id))?.connection_pooler?.endpoint,
        ).toBeUndefined();
      },
    };
  },
  'replicaSet.setEnvironment': async () => {
    const { serviceId: service_id, setId: replica_set_id } = await fx.activeReplicaSet();
    return {
      input: { ...project, service_id, replica_set_id, environment: 'PROD' },
      check: async (result) => {
        expect(result).toEqual(message);
        expect((await fx.replicaSet(service_id, replica_set_id))?.metadata).toEqual({ environment: 'PROD' });
      },
    };
  },
};

describe('each action activity succeeds against the local cloud', () => {
  test('there is one activity per catalogue action, plus the wait, lock, approval, notification and drift activities', () => {
    expect(Object.keys(activities).sort()).toEqual(
      [
        ...ACTION_NAMES,
        'approval.verify',
        'hold.verify',
        'run.admit',
        'policy.check',
        'lock.request',
        'lock.take',
        'lock.watchHolder',
        'notify.deliver',
        'notify.plan',
        'drift.check',
        'drift.deliver',
        'drift.repair',
        'drift.repairOutcomes',
        'wait.until',
      ].sort(),
    );
  });

  test.each(ACTION_NAMES)('%s', async (action) => {
    const prepare = (successCases as Partial<Record<string, () => Promise<SuccessCase>>>)[action];
    if (prepare === undefined) throw new Error(`no success case for ${action}`);
    const { input, check } = await prepare();
    // A success status the catalogue accepts: the current dialect answers some with another one
    // (updatePassword 200 instead of 204).
    const { successStatus, alsoAccepted } = operations[action];
    const successes = async () => {
      const counts = await Promise.all(
        [successStatus, ...alsoAccepted].map((status) => fx.answered(action, status)),
      );
      return counts.reduce((sum, count) => sum + count, 0);
    };
    const before = await successes();
    askedFor.length = 0;
    const result = await runActivity(action, input);
    // The activity made exactly one successful call of its own operation, with the input's project.
    expect(await successes()).toBe(before + 1);
    expect(new Set(askedFor)).toEqual(new Set([input.project_id]));
    await check(result);
  });
});

describe('API errors become failures typed by their stable code', () => {
  test('400 (an illegal transition, judged by the server) is not retryable', async () => {
    const service_id = await fx.readyService('awake');
    const before = await fx.answered('service.start', 400);
    const failure = await failureOf(runActivity('service.start', { ...project, service_id }));
    expect(failure).toMatchObject({ type: 'CLOUD_API_BAD_REQUEST', nonRetryable: true });
    expect(failure.message).toMatch(/not PAUSED/);
    expect(failure.details).toEqual([{ action: 'service.start', status: 400, apiCode: 'INVALID_REQUEST' }]);
    expect(await fx.answered('service.start', 400)).toBe(before + 1);
  });

  test('401 (wrong secret key) is not retryable, and the key is not in the failure', async () => {
    const secretKey = 'wrong-secret-key-123';
    const intruder = activitiesWith(fx.clientFor({ secretKey }));
    const failure = await failureOf(runActivity('service.list', project, { via: intruder }));
    expect(failure).toMatchObject({ type: 'CLOUD_API_UNAUTHORIZED', nonRetryable: true });
    expect(JSON.stringify({ message: failure.message, details: failure.details })).not.toContain(secretKey);
  });

  test('404 is not retryable', async () => {
    const failure = await failureOf(runActivity('service.get', { ...project, service_id: 'zzzzzzzzzz' }));
    expect(failure).toMatchObject({ type: 'CLOUD_API_NOT_FOUND', nonRetryable: true });
    expect(failure.details).toEqual([{ action: 'service.get', status: 404, apiCode: 'NOT_FOUND' }]);
  });

  test('409 (busy or conflicting state) is retryable with backoff', async () => {
    const service_id = await fx.readyService('double-pooled');
    await fx.client.service.enablePooler({ ...project, service_id });
    fx.settle();
    const failure = await failureOf(runActivity('service.enablePooler', { ...project, service_id }));
    expect(failure).toMatchObject({ type: 'CLOUD_API_CONFLICT', nonRetryable: false });
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  test('5xx is retryable with backoff', async () => {
    fx.tc.cloud.addFaults({ kind: 'error', action: 'vpc.list', status: 503, times: 1 });
    const failure = await failureOf(runActivity('vpc.list', project));
    expect(failure).toMatchObject({ type: 'CLOUD_API_SERVER_ERROR', nonRetryable: false });
    expect(failure.details).toEqual([{ action: 'vpc.list', status: 503, apiCode: expect.any(String) }]);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  test('429 is retryable after the Retry-After delay (nextRetryDelay)', async () => {
    fx.tc.cloud.addFaults({ kind: 'rateLimit', action: 'service.list', retryAfterSeconds: 7, times: 1 });
    const failure = await failureOf(runActivity('service.list', project));
    expect(failure).toMatchObject({
      type: 'CLOUD_API_RATE_LIMITED',
      nonRetryable: false,
      nextRetryDelay: 7000,
    });
  });

  test('an input that breaks the request schema fails before any request is sent', async () => {
    const before = (await fx.stats()).total;
    const failure = await failureOf(
      runActivity('service.resize', { ...project, service_id: 'abc', cpu_millis: 2000 }),
    );
    expect(failure).toMatchObject({ type: 'ACTIVITY_INPUT_INVALID', nonRetryable: true });
    expect(failure.message).toMatch(/memory_gbs/);
    expect((await fx.stats()).total).toBe(before);
  });
});

describe('create-or-adopt', () => {
  const vpcBody = { cidr: '10.30.0.0/16', region_code: 'us-east-1' };
  const vpcsNamed = async (name: string) =>
    (await fx.client.vpc.list(project)).filter((v) => v.name === name);

  test('a first attempt whose name is taken fails clearly, without creating a second one', async () => {
    await fx.client.vpc.create({ ...project, name: 'taken', ...vpcBody });
    const failure = await failureOf(runActivity('vpc.create', { ...project, name: 'taken', ...vpcBody }));
    expect(failure).toMatchObject({ type: 'RESOURCE_NAME_TAKEN', nonRetryable: true });
    expect(failure.message).toMatch(/"taken" already exists/);
    expect(await vpcsNamed('taken')).toHaveLength(1);
  });

  test('a retried attempt, or a step that asks to adopt, takes over the existing resource', async () => {
    const existing = await fx.client.vpc.create({ ...project, name: 'earlier', ...vpcBody });
    const creates = await fx.answered('vpc.create', 201);
    const input = { ...project, name: 'earlier', ...vpcBody };
    expect(await runActivity('vpc.create', input, { attempt: 2 })).toEqual({ ...existing, adopted: true });
    expect(await runActivity('vpc.create', input, { adoptExisting: true })).toEqual({
      ...existing,
      adopted: true,
    });
    expect(await fx.answered('vpc.create', 201)).toBe(creates);
    expect(await vpcsNamed('earlier')).toHaveLength(1);
  });
});

describe('local changes', () => {
  test('a local change the API takes is sent without a read first', async () => {
    const service_id = await fx.readyService('local-pooled');
    const reads = await fx.answered('service.get', 200);
    const result = await runActivity('service.enablePooler', { ...project, service_id }, { isLocal: true });
    expect(result).not.toHaveProperty('alreadyApplied');
    expect(await fx.answered('service.enablePooler', 200)).toBeGreaterThanOrEqual(1);
    expect(await fx.answered('service.get', 200)).toBe(reads);
  });

  test('a local change re-run after it took effect succeeds on the API refusing it again', async () => {
    const service_id = await fx.readyService('local-rerun');
    await fx.client.service.enablePooler({ ...project, service_id });
    fx.settle();
    const refused = await fx.answered('service.enablePooler', 409);
    const result = await runActivity('service.enablePooler', { ...project, service_id }, { isLocal: true });
    expect(result).toMatchObject({ service_id, alreadyApplied: true });
    expect(await fx.answered('service.enablePooler', 409)).toBe(refused + 1);
  });

  test('a refusal stands when the change does not hold', async () => {
    const created = await fx.client.service.create({ ...project, name: 'local-queued' });
    const service_id = created.service_id!;
    const failure = await failureOf(
      runActivity('service.start', { ...project, service_id }, { isLocal: true }),
    );
    // A service still being created is busy (409); it is not running, so the refusal stands.
    expect(failure).toMatchObject({ type: 'CLOUD_API_CONFLICT' });
    expect((await fx.client.service.get({ ...project, service_id })).status).toBe('QUEUED');
  });
});
