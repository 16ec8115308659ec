// Starts the local cloud in-process on 127.0.0.1 port 0 for a test (as the dev stack starts it,
// stack/local-cloud.ts), and talks to it over real HTTP with undici. `manualClock: true` makes lifecycles move only on `advance(ms)`. `call()` sends
// the control token to control API URLs and the first project's key pair to the rest.
import { request } from 'undici';
import { createCloudClient, type CloudClient } from '../../cloud/client';
import { ManualClock } from '../../local-cloud/clock';
import {
  cloudWorkerEnv as workerEnvFor,
  firstProjectAccess,
  startLoopbackCloud,
  type LoopbackCloudOptions,
} from '../../stack/local-cloud';
import type { LocalCloud, LocalCloudOptions, ProjectCredentials } from '../../local-cloud/server';
import { answerCheckForTests, type AnswerConformanceRecorder } from './answer-conformance';

/** The dialects the local cloud answers in, for suites that run in each (`describe.each(DIALECTS)`). */
export const DIALECTS = ['seed', 'current'] as const;

export interface TestCloudOptions extends Omit<LocalCloudOptions, 'host' | 'port' | 'clock'> {
  /** Drive time by hand (`advance`) instead of the system clock. */
  manualClock?: boolean;
  /**
   * Check every answer against the vendor's API document with the project's overlays
   * (answer-conformance.ts; default on): `close()` then throws if any answer broke it, naming the
   * operation, status, dialect and JSON path of each problem.
   */
  checkAnswers?: boolean;
}

export interface TestCloud {
  readonly cloud: LocalCloud;
  /** Base URL of the API (`…/public/api/v1`). */
  readonly url: string;
  readonly controlUrl: string;
  /** `Bearer <controlToken>`, what the control API wants in `Authorization` (empty when it is off). */
  readonly controlAuthorization: string;
  /** The first project and its key pair. */
  readonly project: ProjectCredentials;
  /** `Basic …` header value for the first project's key pair. */
  readonly authorization: string;
  /** The answer check, when on (and the vendor document is available). */
  readonly answerCheck: AnswerConformanceRecorder | undefined;
  /** Moves the manual clock forward; throws when the cloud runs on the system clock. */
  advance(ms: number): void;
  /** Stops the cloud; then throws if an answer broke the vendor's API document. */
  close(): Promise<void>;
}

export function basicAuth(accessKey: string, secretKey: string): string {
  return `Basic ${Buffer.from(`${accessKey}:${secretKey}`).toString('base64')}`;
}

/** What a test cloud is started with, and how it becomes a TestCloud once started (e.g. by a stack). */
export interface PreparedTestCloud {
  readonly options: LoopbackCloudOptions;
  /** The TestCloud of the started cloud; `close()` stops it, then reports broken answers. */
  wrap(cloud: LocalCloud): TestCloud;
  /** Throws naming every answer that broke the vendor's API document so far. */
  checkAnswers(): void;
}

export function prepareTestCloud(options: TestCloudOptions = {}): PreparedTestCloud {
  const { manualClock, checkAnswers = true, onAnswer, ...rest } = options;
  const clock = manualClock ? new ManualClock() : undefined;
  const answerCheck = checkAnswers ? answerCheckForTests() : undefined;
  const observers = [answerCheck?.observe, onAnswer].filter((o) => o !== undefined);
  const check = (): void => {
    const report = answerCheck?.report();
    if (report !== undefined) throw new Error(report);
  };
  return {
    options: {
      ...rest,
      ...(clock ? { clock } : {}),
      ...(observers.length > 0
        ? { onAnswer: (answer) => observers.forEach((observe) => observe(answer)) }
        : {}),
    },
    checkAnswers: check,
    wrap(cloud) {
      const project = cloud.projects[0]!;
      return {
        cloud,
        url: cloud.url,
        controlUrl: cloud.controlUrl,
        controlAuthorization: cloud.controlToken === null ? '' : `Bearer ${cloud.controlToken}`,
        project,
        authorization: basicAuth(project.access_key, project.secret_key),
        answerCheck,
        advance: (ms) => {
          if (!clock) throw new Error('advance() needs startTestCloud({ manualClock: true })');
          clock.advance(ms);
        },
        close: async () => {
          await cloud.close();
          check();
        },
      };
    },
  };
}

export async function startTestCloud(options: TestCloudOptions = {}): Promise<TestCloud> {
  const prepared = prepareTestCloud(options);
  return prepared.wrap(await startLoopbackCloud(prepared.options));
}

/** The worker settings (TIDELINE_CLOUD_*) that point a worker at the cloud's first project. */
export function cloudWorkerEnv(cloud: TestCloud): Record<string, string> {
  return workerEnvFor(firstProjectAccess(cloud.cloud));
}

/** A typed client of the cloud's first project, for asserting state (close it when done). */
export function cloudApiClient(cloud: TestCloud): CloudClient {
  return createCloudClient({
    baseUrl: cloud.url,
    accessKey: cloud.project.access_key,
    secretKey: cloud.project.secret_key,
    allowInsecureLoopback: true,
  });
}

export interface HttpAnswer<T = Record<string, unknown>> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or undefined for an empty body. */
  body: T;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  /** Overrides the Authorization header (default: the control token or the key pair); `null` sends none. */
  authorization?: string | null;
  headers?: Record<string, string>;
}

/** One HTTP call to the API (path relative to the base URL) or to any absolute URL. */
export async function call<T = Record<string, unknown>>(
  cloud: TestCloud,
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'OPTIONS',
  path: string,
  options: CallOptions = {},
): Promise<HttpAnswer<T>> {
  const target = /^https?:/.test(path) ? path : cloud.url + path;
  const headers: Record<string, string> = { 'user-agent': 'tideline-tests', ...options.headers };
  const toControl = target.startsWith(`${cloud.controlUrl}/`) || target === cloud.controlUrl;
  const fallback = toControl ? cloud.controlAuthorization : cloud.authorization;
  const authorization = options.authorization === undefined ? fallback : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  let payload: string | undefined = options.rawBody;
  if (payload === undefined && options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  const answer = await request(target, {
    method,
    headers,
    ...(payload !== undefined ? { body: payload } : {}),
  });
  const text = await answer.body.text();
  return {
    status: answer.statusCode,
    headers: answer.headers,
    body: (text === '' ? undefined : JSON.parse(text)) as T,
  };
}

/** Paths of the first project's resources. */
export function paths(cloud: TestCloud) {
  const p = `/projects/${cloud.project.id}`;
  return {
    services: `${p}/services`,
    service: (id: string) => `${p}/services/${id}`,
    replicaSets: (id: string) => `${p}/services/${id}/replicaSets`,
    replicaSet: (id: string, setId: string) => `${p}/services/${id}/replicaSets/${setId}`,
    vpcs: `${p}/vpcs`,
    vpc: (id: string) => `${p}/vpcs/${id}`,
    peerings: (vpcId: string) => `${p}/vpcs/${vpcId}/peerings`,
    peering: (vpcId: string, id: string) => `${p}/vpcs/${vpcId}/peerings/${id}`,
  };
}
