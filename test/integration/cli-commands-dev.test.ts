// `tideline dev` through the real binary: the first stdout line describes the stack (Temporal on
// 127.0.0.1 with its Web UI, the local cloud with its key pair, the worker), every port answers,
// a runbook runs against it, and SIGINT / SIGTERM stop everything: no process it started remains
// and its ports are free again.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { request } from 'undici';
import { createCloudClient } from '../../cloud/client';
import { formatZoned } from '../../dsl/zoned-time';
import { isPortFree } from '../../stack/ports';
import { runTideline, startCli } from '../helpers/cli-process';
import { buildDist } from '../helpers/worker-process';
import { commandLine, descendants, startDevCli, survivors } from './cli-dev-helpers';

jest.setTimeout(240_000);

function portOf(address: string): number {
  return Number(new URL(address.includes('://') ? address : `http://${address}`).port);
}

async function answers(url: string): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const response = await request(url);
      await response.body.dump();
      return response.statusCode;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

describe('tideline dev', () => {
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-dev-'));
    await buildDist();
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('--json: stack on 127.0.0.1, ports answer, a run works, SIGINT leaves no process behind', async () => {
    const dbFile = path.join(dir, 'dev.db');
    const { cli, info } = await startDevCli(['--time-scale', '0.05', '--db', dbFile]);
    try {
      expect(info.temporal).toEqual({
        address: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        namespace: 'default',
        webUiUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        dbFile,
      });
      expect(info.cloud.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/public\/api\/v1$/);
      expect(info.cloud.stateFile).toBe(`${dbFile}.cloud.json`);
      expect(info.cloud.projects).toEqual([
        {
          id: expect.any(String),
          name: 'default',
          access_key: expect.any(String),
          secret_key: expect.any(String),
        },
      ]);
      expect(info.worker).toMatchObject({ taskQueue: 'tideline', keySource: 'env' });
      expect(info.codec).toEqual({ endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/codec$/) });

      // Every port answers: Temporal's frontend, the Web UI, the local cloud.
      const connection = await Connection.connect({ address: info.temporal.address });
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      await connection.close();
      expect(await answers(info.temporal.webUiUrl)).toBe(200);
      const health = await fetch(`${info.cloud.controlUrl}/health`, {
        headers: { authorization: `Bearer ${info.cloud.controlToken}` },
      });
      expect(health.status).toBe(200);
      expect((await fetch(`${info.cloud.controlUrl}/health`)).status).toBe(401);
      expect(existsSync(dbFile)).toBe(true);

      // The worker in the stack runs a runbook started by another `tideline` process.
      const project = info.cloud.projects[0]!;
      const run = await runTideline(
        [
          'run',
          'runbooks/stop-dev-services.yaml',
          '-i',
          `project_id=${project.id}`,
          '--address',
          info.temporal.address,
          '--json',
        ],
        { timeoutMs: 120_000 },
      );
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ runbook: 'stop-dev-services', status: 'succeeded' });

      const children = descendants(cli.pid);
      const temporal = children.filter((pid) => commandLine(pid).includes('server start-dev'));
      expect(temporal.length).toBeGreaterThan(0);
      expect(commandLine(temporal[0]!)).toContain('--ip 127.0.0.1');
      // The Web UI decrypts through the stack's codec server (its origin gets the CORS preflight);
      // its endpoint, which holds a secret, comes from an env file, not the command line
      // (cli-commands-dev-codec-token.test.ts has the rest).
      expect(commandLine(temporal[0]!)).toContain('--env-file ');
      expect(commandLine(temporal[0]!)).not.toContain(info.codec!.endpoint);
      const preflight = await fetch(`${info.codec!.endpoint}/decode`, {
        method: 'OPTIONS',
        headers: { origin: info.temporal.webUiUrl, 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(info.temporal.webUiUrl);

      cli.signal('SIGINT');
      const result = await cli.done;
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('tideline dev: stopped');
      expect(await survivors(children)).toEqual([]);
      for (const port of [
        portOf(info.temporal.address),
        portOf(info.temporal.webUiUrl),
        portOf(info.cloud.url),
        portOf(info.codec!.endpoint),
      ]) {
        expect(await isPortFree(port)).toBe(true);
      }
      // The local cloud's state was kept next to the Temporal database.
      expect(existsSync(`${dbFile}.cloud.json`)).toBe(true);
    } finally {
      cli.signal('SIGTERM');
      await cli.done;
    }
  });

  test('human summary: addresses, the local credential marked as such, how to run a runbook; SIGTERM stops it', async () => {
    const cli = startCli(['dev', '--port', '0'], { timeoutMs: 5 * 60_000 });
    try {
      const stdout = await cli.waitForStdout(/tideline list --address/, 120_000);
      const address = /Temporal\s+(127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      expect(address).toBeDefined();
      expect(stdout).toMatch(/Web UI\s+http:\/\/127\.0\.0\.1:\d+/);
      expect(stdout).toMatch(/Local cloud\s+http:\/\/127\.0\.0\.1:\d+\/public\/api\/v1/);
      expect(stdout).toMatch(/secret key \S+ {3}\(a local development credential of this local cloud only\)/);
      expect(stdout).toContain(
        `tideline run runbooks/stop-dev-services.yaml --address ${address} -i project_id=`,
      );
      const children = descendants(cli.pid);
      cli.signal('SIGTERM');
      const result = await cli.done;
      expect(result.code).toBe(0);
      expect(await survivors(children)).toEqual([]);
    } finally {
      cli.signal('SIGTERM');
      await cli.done;
    }
  });

  test('--config FILE: the worker keeps its policies; a PROD resize waits for the freeze as `plan --config FILE` says', async () => {
    const freezeEnds = new Date(Math.ceil((Date.now() + 3 * 86_400_000) / 60_000) * 60_000);
    const config = path.join(dir, 'dev-worker.yaml');
    writeFileSync(
      config,
      `calendars:
  release-freeze:
    kind: freeze
    timezone: UTC
    from: '${new Date(Date.now() - 3_600_000).toISOString()}'
    until: '${freezeEnds.toISOString()}'
policies:
  - name: prod-freeze
    when: "step.action == 'service.resize' && target.environment == 'PROD'"
    effect: window
    calendar: release-freeze
    outside: wait
`,
      { mode: 0o600 },
    );
    const { cli, info } = await startDevCli(['--time-scale', '0.05', '--config', config]);
    try {
      const project = info.cloud.projects[0]!;
      const api = createCloudClient({
        baseUrl: info.cloud.url,
        accessKey: project.access_key,
        secretKey: project.secret_key,
        allowInsecureLoopback: true,
      });
      const serviceId = (
        await api.service.create({ project_id: project.id, name: 'orders', environment_tag: 'PROD' })
      ).service_id!;
      await api.close();
      const inputs = [
        '-i',
        `project_id=${project.id}`,
        '-i',
        `service_id=${serviceId}`,
        '-i',
        'cpu_millis=2000',
      ];

      // The plan with the same file (and the local cloud's credentials to read the target) says it waits.
      const plan = await runTideline(
        ['plan', 'runbooks/resize-with-rollback.yaml', ...inputs, '--config', config],
        {
          env: {
            TIDELINE_CLOUD_URL: info.cloud.url,
            TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
            TIDELINE_CLOUD_PROJECT_ID: project.id,
            TIDELINE_CLOUD_ACCESS_KEY: project.access_key,
            TIDELINE_CLOUD_SECRET_KEY: project.secret_key,
          },
        },
      );
      expect({ code: plan.code, stderr: plan.stderr }).toEqual({ code: 0, stderr: '' });
      expect(plan.stdout).toContain(
        `window prod-freeze: freeze release-freeze is in force until ${formatZoned('UTC', freezeEnds.getTime())} (UTC): the change waits`,
      );

      // The dev worker agrees: the resize waits for the window, and no resize reached the cloud.
      const started = await runTideline(
        [
          'run',
          'runbooks/resize-with-rollback.yaml',
          ...inputs,
          '--id',
          'dev-freeze',
          '--detach',
          '--address',
          info.temporal.address,
        ],
        { timeoutMs: 120_000 },
      );
      expect({ code: started.code, stderr: started.stderr }).toMatchObject({ code: 0 });
      let status: Record<string, unknown> = {};
      const deadline = Date.now() + 120_000;
      while (status.windowWait == null && Date.now() < deadline) {
        const once = await runTideline([
          'status',
          'dev-freeze',
          '--once',
          '--json',
          '--address',
          info.temporal.address,
        ]);
        expect(once.stderr).toBe('');
        status = JSON.parse(once.stdout) as Record<string, unknown>;
        if (status.windowWait == null) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(status).toMatchObject({
        status: 'running',
        windowWait: { rule: 'prod-freeze', calendar: 'release-freeze', until: freezeEnds.toISOString() },
      });
      const human = await runTideline(['status', 'dev-freeze', '--once', '--address', info.temporal.address]);
      expect(human.stdout).toContain('waits for change window release-freeze (policy prod-freeze)');
      const stats = (await (
        await fetch(`${info.cloud.controlUrl}/stats`, {
          headers: { authorization: `Bearer ${info.cloud.controlToken}` },
        })
      ).json()) as { byAction: Record<string, { total: number }> };
      expect(stats.byAction['service.resize']?.total ?? 0).toBe(0);
    } finally {
      cli.signal('SIGTERM');
      await cli.done;
    }
  });

  test('--config FILE with keys the dev worker cannot honour: refused by key (exit 2), nothing starts', async () => {
    const config = path.join(dir, 'remote-worker.yaml');
    writeFileSync(
      config,
      'cloud:\n  baseUrl: https://api.example.com/public/api/v1\n  projects:\n    d1k5vk7hf2: { bearerToken: eyJ0 }\ntemporal: { address: 10.0.0.1:7233 }\n',
      { mode: 0o600 },
    );
    const result = await runTideline(['dev', '--port', '0', '--config', config], { timeoutMs: 60_000 });
    expect(result.code).toBe(2);
    for (const key of ['cloud.baseUrl', 'cloud.projects', 'temporal.address']) {
      expect(result.stderr).toContain(`${key}: not honoured by tideline dev`);
    }
    expect(result.stderr).not.toContain('eyJ0');
    expect(result.stdout).toBe('');
  });

  test('a port that is taken is a usage error (exit 2), and nothing is left running', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runTideline(['dev', '--port', String(port)], { timeoutMs: 60_000 });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--port ${port}: the port is already in use on 127.0.0.1`);
      expect(result.stdout).toBe('');
    } finally {
      blocker.close();
    }
    const bad = await runTideline(['dev', '--ui-port', 'eighty'], { timeoutMs: 60_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--ui-port must be a port number');
  });
});
