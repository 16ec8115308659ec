// What `tideline test` runs cases on: one ephemeral, headless, in-memory Temporal dev server on a
// free port (the shared launcher, cli/dev-stack/), one tideline worker in this process, and a
// client with the worker's keys (a fresh random key: nothing outlives the command). Each case has
// a local cloud of its own, with a project id of its own; the worker's Cloud API clients are
// looked up by project id among the clouds of the cases running, so cases can run side by side.
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { CloudCaller, CloudClientResolver } from '../../activities/deps';
import { CloudApiError } from '../../cloud/errors';
import { connectCodecClient, connectWorker, localConnectionSettings } from '../../worker/connection';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import { createRedactingLogger } from '../../worker/redacting-logger';
import { startInProcessWorker } from '../dev-stack/in-process-worker';
import { localCloudWorkerConfig } from '../dev-stack/local-cloud';
import { startLocalTemporal } from '../dev-stack/local-temporal';
import { resolveTemporalExecutable } from '../dev-stack/temporal-binary';
import { createTeardown, unwindOnFailure } from '../dev-stack/teardown';

export interface TestStack {
  readonly client: Client;
  readonly taskQueue: string;
  /** The key pair every case's cloud gives its project (generated once, kept out of logs). */
  readonly credentials: { accessKey: string; secretKey: string };
  /** Routes the worker's calls for `projectId` to `caller` until the returned function is called. */
  route(projectId: string, caller: CloudCaller): () => void;
  close(): Promise<void>;
}

const NAMESPACE = 'default';

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
  const teardown = createTeardown();
  const routes = new Map<string, CloudCaller>();
  const taskQueue = `tideline-test-${randomBytes(4).toString('hex')}`;
  const keyRing = new EncryptionKeyRing([{ id: 'tideline-test', key: randomBytes(32) }]);
  return unwindOnFailure(teardown, async () => {
    const server = await startLocalTemporal({ executable });
    teardown.addLast(() => server.stop());
    const settings = localConnectionSettings(server.address, NAMESPACE);
    const connection = await connectWorker(settings);
    teardown.add(() => connection.close());
    // The configuration needs a project; the routing resolver answers for every case's instead.
    const config = localCloudWorkerConfig(
      'http://127.0.0.1:9/public/api/v1',
      [{ url: '', projectId: 'unrouted', ...credentials }],
      taskQueue,
    );
    const worker = await startInProcessWorker(config, {
      keyRing,
      connection,
      namespace: NAMESPACE,
      clients: routingResolver(routes),
    });
    teardown.add(() => worker.stop());
    const client = await connectCodecClient(settings, keyRing);
    teardown.add(() => client.connection.close());
    return {
      client,
      taskQueue,
      credentials,
      route(projectId, caller) {
        routes.set(projectId, caller);
        return () => routes.delete(projectId);
      },
      close: () => teardown.close(),
    };
  });
}
