// One runbook through a real worker whose only Cloud API credential is a bearer token (config
// file `{ bearerToken }`): the activities reach the local cloud with `Authorization: Bearer …`,
// the service the runbook creates is there, and the token is in neither the report nor the
// stored history.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadRunbookText } from '../../dsl/loader';
import { createDataConverter } from '../../worker/codec';
import { loadWorkerConfig } from '../../worker/config';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import { createTidelineWorker } from '../../worker/worker';
import type { RunReport, RunbookWorkflowInput } from '../../contract/run-messages';
import { cloudApiClient, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { expectSecretsNotStored, readStoredHistory } from '../helpers/stored-history';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server';

const RUNBOOK = `
apiVersion: tideline/v1
name: bearer-token-create
description: Creates a service and lists the project's services.
inputs:
  project_id: { type: string }
steps:
  - id: created
    call: service.create
    with:
      project_id: '\${{ inputs.project_id }}'
      name: via-bearer-worker
  - id: listed
    call: service.list
    with:
      project_id: '\${{ inputs.project_id }}'
`;

const keyRing = new EncryptionKeyRing([{ id: 'test-key', key: randomBytes(32) }]);

describe('a worker with a bearer token', () => {
  let server: TemporalServer;
  let cloud: TestCloud;
  let connection: Connection;
  const token = `eyJhbGciOiJIUzI1NiJ9.e30.${randomBytes(24).toString('base64url')}`;

  beforeAll(async () => {
    server = await startTemporalServer();
    connection = await Connection.connect({ address: server.address });
    cloud = await startTestCloud({ config: { projects: [{ name: 'bearer', bearer_token: token }] } });
  }, 90_000);
  afterAll(async () => {
    await connection?.close();
    await cloud?.close();
    await server?.stop();
  });

  test('runs a runbook that creates a service, and keeps the token out of report and history', async () => {
    const taskQueue = `bearer-${randomBytes(4).toString('hex')}`;
    const projectId = cloud.project.id;
    const file = JSON.stringify({
      taskQueue,
      cloud: {
        baseUrl: cloud.url,
        allowInsecureLoopback: true,
        projects: { [projectId]: { bearerToken: token } },
      },
    });
    const config = loadWorkerConfig({
      env: { TIDELINE_CONFIG: '/etc/tideline/worker.json' },
      readFile: () => file,
    });
    expect(config.cloud.projects.get(projectId)?.accessKey).toBeUndefined();

    const input: RunbookWorkflowInput = {
      definition: loadRunbookText(RUNBOOK, 'bearer-token-create.yaml'),
      inputs: { project_id: projectId },
    };
    const workerConnection = await NativeConnection.connect({ address: server.address });
    const api = cloudApiClient(cloud);
    try {
      const tideline = await createTidelineWorker(config, {
        keyRing,
        connection: workerConnection,
        workflows: { workflowsPath: require.resolve('../../workflows') },
      });
      const client = new Client({ connection, dataConverter: createDataConverter(keyRing) });
      const workflowId = `bearer-${randomBytes(4).toString('hex')}`;
      const report: RunReport = await tideline.worker.runUntil(
        client.workflow.execute('runbookWorkflow', { taskQueue, workflowId, args: [input] }),
      );
      expect(report.status).toBe('succeeded');
      expect(Object.fromEntries(report.steps.map((step) => [step.key, step.status]))).toEqual({
        created: 'done',
        listed: 'done',
      });
      // The service is really there (read through the project's key pair).
      const services = await api.service.list({ project_id: projectId });
      expect(services.map((service) => service.name)).toEqual(['via-bearer-worker']);

      expect(JSON.stringify(report)).not.toContain(token);
      expectSecretsNotStored(await readStoredHistory(connection, workflowId), [token]);
    } finally {
      await api.close();
      await workerConnection.close();
    }
  }, 90_000);
});
