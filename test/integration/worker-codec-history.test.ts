// End to end on a real dev server: a workflow whose input, activity result and activity failure
// all carry secrets runs through an in-process tideline worker; the history, read raw (without the
// codec), must not contain any of them, while a client with the keys sees the real values.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { createDataConverter, ENCRYPTED_ENCODING } from '../../worker/codec';
import { loadWorkerConfig } from '../../worker/config';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import { createTidelineWorker } from '../../worker/worker';
import { expectSecretsNotStored, readStoredHistory } from '../helpers/stored-history';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server';
import type { SecretActivities } from './codec-fixture-workflows';

const keyRing = new EncryptionKeyRing([{ id: 'test-key', key: randomBytes(32) }]);

describe('encrypted payloads in the stored history', () => {
  let server: TemporalServer;
  let connection: Connection;

  beforeAll(async () => {
    server = await startTemporalServer();
    connection = await Connection.connect({ address: server.address });
  }, 90_000);
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  test('secrets in input, result and failure messages are not readable without the key', async () => {
    const secretKey = `sk-${randomBytes(12).toString('hex')}`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const taskQueue = `codec-${randomBytes(4).toString('hex')}`;
    const config = loadWorkerConfig({
      env: {
        TIDELINE_TASK_QUEUE: taskQueue,
        TIDELINE_CLOUD_URL: 'http://127.0.0.1:9/public/api/v1',
        TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
        TIDELINE_CLOUD_PROJECT_ID: 'p1',
        TIDELINE_CLOUD_ACCESS_KEY: 'access',
        TIDELINE_CLOUD_SECRET_KEY: secretKey,
      },
    });
    const activities: SecretActivities = {
      issuePassword: async (owner) => ({ owner, password }),
      rejectPassword: async (value) => {
        throw ApplicationFailure.nonRetryable(`password ${value} was rejected`, 'TEST_REJECTED');
      },
    };
    const workerConnection = await NativeConnection.connect({ address: server.address });
    try {
      const tidelineWorker = await createTidelineWorker(config, {
        keyRing,
        connection: workerConnection,
        activities,
        workflows: { workflowsPath: require.resolve('./codec-fixture-workflows') },
      });
      const client = new Client({ connection, dataConverter: createDataConverter(keyRing) });
      const workflowId = `codec-${randomBytes(4).toString('hex')}`;
      const result = await tidelineWorker.worker.runUntil(
        client.workflow.execute('secretRoundTrip', {
          taskQueue,
          workflowId,
          args: [{ owner: 'alice', secretKey }],
          memo: { note: `memo holds ${secretKey}` },
        }),
      );
      // With the key, everything decodes back.
      expect(result).toEqual({ secretKey, password, failureMessage: `password ${password} was rejected` });

      // Without the key: the raw stored history.
      const stored = await readStoredHistory(connection, workflowId);
      expectSecretsNotStored(stored, [secretKey, password]);
      // The payloads are really encrypted ones, and the failure message is replaced.
      const events = stored.history.events ?? [];
      const started = events.find((e) => e.workflowExecutionStartedEventAttributes);
      const inputPayload = started?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      expect(Buffer.from(inputPayload?.metadata?.encoding ?? []).toString()).toBe(ENCRYPTED_ENCODING);
      const failed = events.find((e) => e.activityTaskFailedEventAttributes);
      expect(failed?.activityTaskFailedEventAttributes?.failure?.message).toBe('Encoded failure');
      expect(stored.raw.includes(Buffer.from('was rejected'))).toBe(false);

      // A client holding other keys cannot read the result and says why.
      const stranger = new Client({
        connection,
        dataConverter: createDataConverter(
          new EncryptionKeyRing([{ id: 'other-key', key: randomBytes(32) }]),
        ),
      });
      await expect(stranger.workflow.getHandle(workflowId).result()).rejects.toMatchObject({
        code: 'TIDELINE_ENCRYPTION_KEY_UNKNOWN',
      });
    } finally {
      await workerConnection.close();
    }
  }, 120_000);
});
