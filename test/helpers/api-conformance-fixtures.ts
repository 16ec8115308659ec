// Shared set-up of the API-conformance tests: a local cloud on a manual clock, typed clients against it,
// the control API's request counts, and short-cuts to resources in a given state.
import { request } from 'undici';
import { createCloudClient, type CloudClient, type CloudClientOptions } from '../../cloud/client';
import { isCloudApiError, type CloudApiError, type CloudApiErrorCode } from '../../cloud/errors';
import type { ReadReplicaSet, Service, Vpc } from '../../cloud/models';
import { operations, type ActionInput, type ActionName, type ActionOutput } from '../../cloud/operations';
import type { ProjectCredentials } from '../../local-cloud/server';
import type { StatsView } from '../../local-cloud/stats';
import { startTestCloud, type TestCloud, type TestCloudOptions } from './local-cloud';

export interface ConformanceCloud {
  readonly tc: TestCloud;
  /** A validating client of the first project. */
  readonly client: CloudClient;
  /** A client of the first project that sends bodies unchecked, so the server judges them. */
  readonly raw: CloudClient;
  readonly projectId: string;
  /** Another client (closed with the cloud); defaults to the first project's key pair. */
  clientFor(overrides?: Partial<CloudClientOptions>, project?: ProjectCredentials): CloudClient;
  /** Request counts as the control API (`GET /__sim/stats`) reports them. */
  stats(): Promise<StatsView>;
  /** How often the server answered `action` with `status` so far. */
  answered(action: ActionName, status: number | 'dropped'): Promise<number>;
  /**
   * Calls `action` and checks that the server answered it exactly once with the catalogue's
   * success status (the client checks the status too; this proves the server sent it).
   */
  expectSuccess<A extends ActionName>(
    action: A,
    input: ActionInput<A>,
    client?: CloudClient,
  ): Promise<ActionOutput<A>>;
  advance(ms: number): void;
  /** Moves the clock far enough for any one transition (or create + first snapshot) to finish. */
  settle(): void;
  /** A new service, already READY (and past its first snapshot when `snapshot` is set). */
  readyService(name?: string, snapshot?: boolean): Promise<string>;
  /** A new VPC that already accepts peerings. */
  readyVpc(name?: string): Promise<Required<Pick<Vpc, 'id'>> & Vpc>;
  /** A READY service with one `active` read replica set. */
  activeReplicaSet(): Promise<{ serviceId: string; setId: string }>;
  getService(serviceId: string): Promise<Service>;
  replicaSet(serviceId: string, setId: string): Promise<ReadReplicaSet | undefined>;
  close(): Promise<void>;
}

export async function startConformanceCloud(options: TestCloudOptions = {}): Promise<ConformanceCloud> {
  const tc = await startTestCloud({ manualClock: true, seed: 2024, ...options });
  const clients: CloudClient[] = [];
  const projectId = tc.project.id;
  const durations = tc.cloud.durations;
  const longest = Math.max(...Object.values(durations));

  const clientFor = (overrides: Partial<CloudClientOptions> = {}, project = tc.project): CloudClient => {
    const made = createCloudClient({
      baseUrl: tc.url,
      accessKey: project.access_key,
      secretKey: project.secret_key,
      allowInsecureLoopback: true,
      timeoutMs: 5_000,
      ...overrides,
    });
    clients.push(made);
    return made;
  };
  const client = clientFor();
  const raw = clientFor({ validateRequests: false });

  const stats = async (): Promise<StatsView> => {
    const answer = await request(`${tc.controlUrl}/stats`, {
      headers: { authorization: tc.controlAuthorization },
    });
    expect(answer.statusCode).toBe(200);
    return (await answer.body.json()) as StatsView;
  };
  const answered = async (action: ActionName, status: number | 'dropped') =>
    (await stats()).byAction[action]?.byStatus[String(status)] ?? 0;

  const fx: ConformanceCloud = {
    tc,
    client,
    raw,
    projectId,
    clientFor,
    stats,
    answered,
    async expectSuccess(action, input, via = client) {
      const status = operations[action].successStatus;
      const before = await answered(action, status);
      const output = await via.call(action, input);
      expect({ action, answered: await answered(action, status) }).toEqual({ action, answered: before + 1 });
      return output;
    },
    advance: (ms) => tc.advance(ms),
    settle: () => tc.advance(durations.queued + durations.configuring + longest),
    async readyService(name = 'svc', snapshot = false) {
      const created = await client.service.create({ project_id: projectId, name });
      tc.advance(durations.queued + durations.configuring + (snapshot ? durations.firstSnapshot : 0));
      return created.service_id!;
    },
    async readyVpc(name = 'net') {
      const vpc = await client.vpc.create({
        project_id: projectId,
        name,
        cidr: '10.20.0.0/16',
        region_code: 'us-east-1',
      });
      tc.advance(durations.vpcProvisioning);
      return { ...vpc, id: vpc.id! };
    },
    async activeReplicaSet() {
      const serviceId = await fx.readyService('with-replicas', true);
      const set = await client.replicaSet.create({
        project_id: projectId,
        service_id: serviceId,
        name: 'readers',
        nodes: 1,
        cpu_millis: 1000,
        memory_gbs: 4,
      });
      tc.advance(durations.replicaSetCreating);
      return { serviceId, setId: set.id! };
    },
    getService: (serviceId) => client.service.get({ project_id: projectId, service_id: serviceId }),
    async replicaSet(serviceId, setId) {
      const sets = await client.replicaSet.list({ project_id: projectId, service_id: serviceId });
      return sets.find((set) => set.id === setId);
    },
    async close() {
      await Promise.all(clients.map((made) => made.close()));
      await tc.close();
    },
  };
  return fx;
}

export interface ExpectedError {
  code: CloudApiErrorCode;
  /** HTTP status; `undefined` asserts that no answer arrived (or the request was never sent). */
  status?: number | undefined;
  apiCode?: string | undefined;
  retryable?: boolean;
  retryAfterMs?: number | undefined;
}

/** Awaits a call that must fail, and checks its stable code (and status, API code) exactly. */
export async function expectCloudError(
  pending: Promise<unknown>,
  expected: ExpectedError,
): Promise<CloudApiError> {
  const outcome = await pending.then(
    (value: unknown) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) {
    throw new Error(
      `expected ${expected.code}, but the call succeeded with ${JSON.stringify(outcome.resolved)}`,
    );
  }
  const { error } = outcome;
  if (!isCloudApiError(error)) throw error;
  const actual: Record<string, unknown> = { code: error.code };
  for (const key of Object.keys(expected) as (keyof ExpectedError)[]) actual[key] = error[key];
  expect(actual).toEqual(expected);
  return error;
}

/** The TIDELINE_CLOUD_* variables that give a CLI or worker the cloud's first project, as a worker has it. */
export function workerCloudEnvironment(fx: ConformanceCloud): NodeJS.ProcessEnv {
  return {
    TIDELINE_CLOUD_URL: fx.tc.url,
    TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
    TIDELINE_CLOUD_PROJECT_ID: fx.projectId,
    TIDELINE_CLOUD_ACCESS_KEY: fx.tc.project.access_key,
    TIDELINE_CLOUD_SECRET_KEY: fx.tc.project.secret_key,
  };
}
