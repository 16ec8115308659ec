// The dev-server helper: persistent restarts on the same port and database, hard kills, and no
// processes left behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { GUARD_SCRIPT, spawnGuarded } from '../helpers/guarded-process';
import {
  createLocalTestEnvironment,
  startTemporalServer,
  type TemporalServer,
} from '../helpers/temporal-server';

function groupIsGone(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function withClient<T>(server: TemporalServer, use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: server.address });
  try {
    return await use(new Client({ connection, namespace: server.namespace }));
  } finally {
    await connection.close();
  }
}

describe('temporal dev server helper', () => {
  let dir: string;
  let server: TemporalServer | undefined;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-temporal-'));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('keeps workflows across stop/restart and kill/start on the same port and database', async () => {
    server = await startTemporalServer({ dbFile: path.join(dir, 'temporal.db') });
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const workflowId = `persisted-${Date.now()}`;
    // No worker is needed: a started workflow stays RUNNING in the store.
    await withClient(server, (client) =>
      client.workflow.start('neverExecuted', { taskQueue: 'nobody-polls', workflowId, args: [] }),
    );

    await server.restart();
    const afterRestart = await withClient(server, (client) =>
      client.workflow.getHandle(workflowId).describe(),
    );
    expect(afterRestart.status.name).toBe('RUNNING');

    const exit = await server.kill();
    expect(exit.signal).toBe('SIGKILL');
    expect(server.isRunning()).toBe(false);
    await server.start();
    const afterKill = await withClient(server, (client) => client.workflow.getHandle(workflowId).describe());
    expect(afterKill.status.name).toBe('RUNNING');
  }, 120_000);

  test('stop leaves no process behind', async () => {
    const inMemory = await startTemporalServer();
    const port = inMemory.port;
    await inMemory.stop();
    expect(inMemory.isRunning()).toBe(false);
    // The port is free again: the server really exited, not just its guard.
    await expect(
      Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1_000 }),
    ).rejects.toThrow();
  }, 60_000);

  test('a guarded command dies when its parent dies, even by SIGKILL', async () => {
    // A parent node process starts `sleep 300` under the guard, prints the guard's process group,
    // and is then SIGKILLed: the guard sees its pipe close and ends the group.
    const parent = spawnGuarded(process.execPath, [
      '-e',
      `const { spawn } = require('node:child_process');
       const guard = spawn('/bin/sh', ['-c', process.argv[1], 'guard', 'sleep', '300'],
         { stdio: ['pipe', 'inherit', 'inherit'], detached: true });
       console.log('group=' + guard.pid);
       setInterval(() => {}, 1000);`,
      GUARD_SCRIPT,
    ]);
    const out = await parent.waitForOutput(/group=\d+/, 10_000);
    const group = Number(/group=(\d+)/.exec(out)?.[1]);
    expect(groupIsGone(group)).toBe(false);
    await parent.kill();
    const deadline = Date.now() + 10_000;
    while (!groupIsGone(group) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(groupIsGone(group)).toBe(true);
  }, 30_000);

  test('the SDK test environment runs on the resolved binary, on loopback', async () => {
    const env = await createLocalTestEnvironment();
    try {
      const address = env.connection.options.address;
      expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
      const namespace = await env.connection.workflowService.describeNamespace({ namespace: 'default' });
      expect(namespace.namespaceInfo?.name).toBe('default');
    } finally {
      await env.teardown();
    }
  }, 60_000);
});
