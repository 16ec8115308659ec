// What `tideline test` runs cases on: the local stack without a cloud (stack/stack.ts): one
// ephemeral, headless, in-memory Temporal dev server on a free port, one tideline worker in this
// process, and a client with the worker's keys (a fresh random key: nothing outlives the command). Each case has
// a local cloud of its own, with a project id of its own; the worker's Cloud API clients are
// looked up by project id among the clouds of the cases running, so cases can run side by side.
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { ApprovalSettings, Clock, CloudCaller, CloudClientResolver } from '../activities/deps';
import type { CompiledGovernance } from '../dsl/policies';
import type { Dialect } from '../local-cloud/dialect';
import { CloudApiError } from '../cloud/errors';
import { EncryptionKeyRing } from '../worker/encryption-keys';
import { createRedactingLogger } from '../worker/redacting-logger';
import { localCloudWorkerConfig } from '../stack/local-cloud';
import { startTemporalStack } from '../stack/stack';
import { resolveTemporalExecutable } from '../stack/temporal-binary';
import { unwindOnFailure } from '../stack/teardown';

export interface TestStack {
  readonly client: Client;
  readonly taskQueue: string;
  /** The key pair every case's cloud gives its project (generated once, kept out of logs). */
  readonly credentials: { accessKey: string; secretKey: string };
  /** The dialect every case's local cloud answers in; the local cloud's default when absent. */
  readonly dialect?: Dialect;
  /** Routes the worker's calls for `projectId` to `caller` until the returned function is called. */
  route(projectId: string, caller: CloudCaller): () => void;
  /**
   * A worker of a case's own, on a task queue of its own, for a case that needs what a worker is
   * configured with: policies and calendars, a starter's registered key and groups, a clock.
   */
  caseWorker(options: CaseWorkerOptions): Promise<{ taskQueue: string; stop(): Promise<void> }>;
  close(): Promise<void>;
}

const NAMESPACE = 'default';

export interface CaseWorkerOptions {
  governance?: CompiledGovernance;
  approvals?: ApprovalSettings;
  clock?: Clock;
}

function routingResolver(routes: Map<string, CloudCaller>): CloudClientResolver {
  return {
    forProject(projectId) {
      const caller = projectId !== undefined ? routes.get(projectId) : undefined;
      if (caller !== undefined) return caller;
      // Cases run side by side, so a call without a project could belong to any of them.
      throw new CloudApiError({
        code: 'CLOUD_API_CONFIG',
        message:
          projectId === undefined
            ? 'in a runbook test every Cloud API call must name its project (pass ${{ cloud.project_id }})'
            : `no local cloud of a running test case has project "${projectId}"; pass \${{ cloud.project_id }} as the runbook's project`,
      });
    },
  };
}

export async function startTestStack(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  dialect?: Dialect,
): Promise<TestStack> {
  const credentials = {
    accessKey: `ak-${randomBytes(8).toString('hex')}`,
    secretKey: randomBytes(24).toString('hex'),
  };
  if (Runtime._instance === undefined) {
    // Retries and failed runs are what cases provoke; the report says what matters, so the SDK
    // (and its core) only speak up for errors.
    Runtime.install({
      logger: createRedactingLogger(new DefaultLogger('ERROR'), [credentials.secretKey]),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
      shutdownSignals: [],
    });
  }
  const executable = await resolveTemporalExecutable(env, log);
  const routes = new Map<string, CloudCaller>();
  const taskQueue = `tideline-test-${randomBytes(4).toString('hex')}`;
  const keyRing = new EncryptionKeyRing([{ id: 'tideline-test', key: randomBytes(32) }]);
  const stack = await startTemporalStack({
    temporal: { start: { executable } },
    namespace: NAMESPACE,
    keyRing,
  });
  return unwindOnFailure(stack.teardown, async () => {
    // The configuration needs a project; the routing resolver answers for every case's instead.
    const config = localCloudWorkerConfig(
      'http://127.0.0.1:9/public/api/v1',
      [{ url: '', projectId: 'unrouted', ...credentials }],
      taskQueue,
    );
    await stack.startInProcessWorker(config, { clients: routingResolver(routes) });
    return {
      async caseWorker(options) {
        const queue = `tideline-test-${randomBytes(4).toString('hex')}`;
        const worker = await stack.startInProcessWorker(
          {
            ...config,
            taskQueue: queue,
            ...(options.approvals !== undefined && { approvals: options.approvals }),
            ...(options.governance !== undefined && { governance: options.governance }),
          },
          {
            clients: routingResolver(routes),
            ...(options.clock !== undefined && { policyClock: options.clock }),
          },
        );
        return { taskQueue: queue, stop: () => worker.stop() };
      },
      client: stack.client,
      taskQueue,
      credentials,
      dialect,
      route(projectId, caller) {
        routes.set(projectId, caller);
        return () => routes.delete(projectId);
      },
      close: () => stack.close(),
    };
  });
}
