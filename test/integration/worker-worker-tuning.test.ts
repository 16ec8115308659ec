// The worker config's `tuning:` section reaches the Temporal worker (capacity for many runs).
import { randomBytes } from 'node:crypto';
import { NativeConnection } from '@temporalio/worker';
import { loadWorkerConfig } from '../../worker/config';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import { createTidelineWorker } from '../../worker/worker';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server';

describe('worker tuning', () => {
  let server: TemporalServer;
  beforeAll(async () => {
    server = await startTemporalServer();
  }, 90_000);
  afterAll(async () => server?.stop());

  test('slots, cache and pollers from the config file are the worker options', async () => {
    const file = [
      'tuning:',
      '  maxConcurrentActivityTaskExecutions: 1500',
      '  maxConcurrentWorkflowTaskExecutions: 80',
      '  maxCachedWorkflows: 1200',
      '  maxConcurrentActivityTaskPolls: 12',
      '  maxConcurrentWorkflowTaskPolls: 14',
      'cloud:',
      '  baseUrl: https://api.example.com/public/api/v1',
      '  projects: { p1: { accessKey: AK, secretKey: SK-secret-value } }',
    ].join('\n');
    const config = loadWorkerConfig({ env: { TIDELINE_CONFIG: '/etc/worker.yaml' }, readFile: () => file });
    const connection = await NativeConnection.connect({ address: server.address });
    try {
      const tideline = await createTidelineWorker(config, {
        keyRing: new EncryptionKeyRing([{ id: 'k', key: randomBytes(32) }]),
        connection,
        workflows: { workflowsPath: require.resolve('../../workflows') },
      });
      const { options } = tideline.worker;
      // A created worker holds the connection until it has run and shut down; shut down only
      // once it runs (a shutdown asked for earlier is ignored).
      const running = tideline.run();
      while (tideline.worker.getState() === 'INITIALIZED') await new Promise((r) => setImmediate(r));
      tideline.shutdown();
      await running;
      // As the SDK compiled them: slots become a fixed-size tuner, pollers a poller behaviour.
      expect(options).toMatchObject({
        tuner: {
          activityTaskSlotSupplier: { type: 'fixed-size', numSlots: 1500 },
          workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: 80 },
        },
        maxCachedWorkflows: 1200,
        activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 12 },
        workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 14 },
      });
    } finally {
      await connection.close();
    }
  }, 60_000);

  test('a bad tuning value is a configuration error naming the field', () => {
    const file =
      'tuning: { maxCachedWorkflows: -1, maxConcurentPolls: 3 }\ncloud: { baseUrl: https://x.example/v1, projects: { p1: { accessKey: A, secretKey: S } } }';
    expect(() => loadWorkerConfig({ env: { TIDELINE_CONFIG: '/w.yaml' }, readFile: () => file })).toThrow(
      /maxCachedWorkflows[\s\S]*maxConcurentPolls|maxConcurentPolls[\s\S]*maxCachedWorkflows/,
    );
  });
});
