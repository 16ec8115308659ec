// The worker as a real process (dist/worker/main.js): configuration errors, readiness, the
// Prometheus endpoint, graceful shutdown on SIGTERM, and no secrets in its output.
import { randomBytes } from 'node:crypto';
import { buildDist, startWorkerProcess } from '../helpers/worker-process';
import { findFreePort, startTemporalServer, type TemporalServer } from '../helpers/temporal-server';

const SECRET_KEY = `sk-${randomBytes(10).toString('hex')}`;

function cloudEnv(): NodeJS.ProcessEnv {
  return {
    // Nothing listens there; no activity runs in these tests.
    TIDELINE_CLOUD_URL: 'http://127.0.0.1:9/public/api/v1',
    TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
    TIDELINE_CLOUD_PROJECT_ID: 'proj000001',
    TIDELINE_CLOUD_ACCESS_KEY: 'AK-test',
    TIDELINE_CLOUD_SECRET_KEY: SECRET_KEY,
  };
}

describe('worker process', () => {
  let server: TemporalServer;

  beforeAll(async () => {
    await buildDist();
    server = await startTemporalServer();
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
  });

  test('a bad configuration exits 2 with a clear message and no stack trace', async () => {
    const { TIDELINE_CLOUD_URL: _url, ...withoutUrl } = cloudEnv();
    const worker = await startWorkerProcess({
      env: { ...withoutUrl, TEMPORAL_ADDRESS: server.address, TIDELINE_METRICS_ADDRESS: 'not-an-address' },
      waitUntilReady: false,
    });
    const exit = await worker.exited;
    expect(exit.code).toBe(2);
    const output = worker.output();
    expect(output).toMatch(/cloud\.baseUrl: required \(set TIDELINE_CLOUD_URL/);
    expect(output).toMatch(/metricsAddress: must look like host:port/);
    expect(output).not.toMatch(/\n\s+at /);
    expect(output).not.toContain(SECRET_KEY);
  }, 60_000);

  test('polls, serves Prometheus metrics, and stops gracefully on SIGTERM', async () => {
    const metricsAddress = `127.0.0.1:${await findFreePort()}`;
    const worker = await startWorkerProcess({
      env: {
        ...cloudEnv(),
        TEMPORAL_ADDRESS: server.address,
        TIDELINE_TASK_QUEUE: `proc-${randomBytes(4).toString('hex')}`,
        TIDELINE_METRICS_ADDRESS: metricsAddress,
      },
    });
    expect(worker.output()).toMatch(
      /tideline worker ready: task queue "proc-[0-9a-f]+", namespace "default"/,
    );
    // buildDist() pre-bundled the workflows, so the worker starts without webpack.
    expect(worker.output()).toContain('workflow code from prebuilt bundle');

    const metrics = await fetch(`http://${metricsAddress}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^temporal_/m);

    worker.signal('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    expect(worker.output()).toContain('tideline worker: stopped');
    expect(worker.output()).not.toContain(SECRET_KEY);
  }, 90_000);
});
