// The native cluster (`tideline cluster up|down`, the pinned Temporal server on PostgreSQL) in a
// temporary directory, run through the real CLI: two worker processes, six provisioning runs, one
// worker SIGKILLed while runs are in flight; every run succeeds with exactly one service in the
// local cloud. `up` again is a no-op on the same ports; `down` leaves no process behind, and a
// later `up` finds the runs again (the data lives in the directory). The cluster's Web UI serves its
// page and lists the runs from PostgreSQL through the frontend. Skipped with a printed reason (a
// failure under TIDELINE_REQUIRE_TOOLS=1) when the server or its Web UI cannot be built (no Go) or
// PostgreSQL is missing and cannot be installed. A second
// case runs the four services as separate processes: the history service SIGKILLed mid-run is
// brought back alone by `up`, and the runs succeed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { pollUntil } from '../../bench/lib/cancel-runs';
import { provisioningDefinition } from '../../bench/lib/stack';
import type { CloudClient } from '../../cloud/client';
import { clusterDown, stopClusterService, type ClusterInfo } from '../../cluster/cluster';
import { isOurProcess } from '../../cluster/processes';
import { createDataConverter } from '../../worker/codec';
import type { RunbookWorkflowInput, RunReport } from '../../contract/run-messages';
import { runTideline } from '../helpers/cli-process';
import { clusterMissing, ensureClusterBuilt } from '../helpers/cluster-availability';
import type { GuardedProcess } from '../helpers/guarded-process';
import { cloudApiClient, cloudWorkerEnv, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { describeWithTools } from '../helpers/tool-requirements';
import { buildDist, startWorkerProcess, testKeyRing } from '../helpers/worker-process';

const RUNS = 6;
const taskQueue = `native-cluster-${randomBytes(4).toString('hex')}`;

let dir: string;
let separateDir: string | undefined;
let tc: TestCloud;
let api: CloudClient;
let connection: Connection | undefined;
const workers: GuardedProcess[] = [];

async function cluster(action: 'up' | 'down' | 'status', ...extra: string[]): Promise<ClusterInfo> {
  const result = await runTideline(['cluster', action, '--dir', dir, ...extra], { timeoutMs: 600_000 });
  if (result.code !== 0) {
    throw new Error(`tideline cluster ${action} exited ${result.code}:\n${result.stderr}\n${result.stdout}`);
  }
  return JSON.parse(result.stdout.split('\n')[0] ?? '') as ClusterInfo;
}

function alive(pid: number | undefined): boolean {
  return pid !== undefined && isOurProcess(pid, '');
}

describeWithTools('the native cluster', clusterMissing(), () => {
  beforeAll(async () => {
    await ensureClusterBuilt();
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-native-cluster-'));
    [tc] = await Promise.all([
      startTestCloud({
        timeScale: 1,
        durations: { queued: 500, configuring: 4_000, vpcAttach: 1_500, pooler: 1_000 },
      }),
      buildDist(),
    ]);
    api = cloudApiClient(tc);
  }, 900_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await connection?.close().catch(() => undefined);
    await api?.close();
    await tc?.close();
    for (const used of [dir, separateDir]) {
      if (!used) continue;
      await clusterDown(used).catch(() => undefined); // whatever a failed case left running
      rmSync(used, { recursive: true, force: true });
    }
  });

  async function startRuns(
    client: Client,
    prefix: string,
    count: number,
    vpcId: string,
  ): Promise<WorkflowHandle[]> {
    const handles: WorkflowHandle[] = [];
    for (let i = 0; i < count; i++) {
      const input: RunbookWorkflowInput = {
        definition: provisioningDefinition(),
        inputs: { project_id: tc.project.id, name: `${prefix}-${i}`, vpc_id: vpcId },
      };
      handles.push(
        await client.workflow.start('runbookWorkflow', {
          taskQueue,
          workflowId: `${prefix}-${i}-${randomBytes(3).toString('hex')}`,
          args: [input],
        }),
      );
    }
    return handles;
  }

  test('cluster up → two workers, one SIGKILLed mid-run → 6 runs succeed, one service each → down', async () => {
    const info = await cluster('up');
    // The Web UI server was built in beforeAll, so `up` starts it and it serves its page.
    expect(info.running).toEqual({ postgres: true, server: true, ui: true });
    expect(info.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(info.webUiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(info.webUiUrl!);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    expect(JSON.stringify(info)).not.toMatch(/password/i);
    // Idempotent: a second `up` changes nothing.
    expect(await cluster('up')).toEqual(info);

    const workerEnv = {
      TEMPORAL_ADDRESS: info.address,
      TEMPORAL_NAMESPACE: info.namespace,
      TIDELINE_TASK_QUEUE: taskQueue,
      ...cloudWorkerEnv(tc),
    };
    workers.push(...(await Promise.all([1, 2].map(() => startWorkerProcess({ env: workerEnv })))));
    connection = await Connection.connect({ address: info.address });
    const client = new Client({
      connection,
      namespace: info.namespace,
      dataConverter: createDataConverter(testKeyRing),
    });
    const project = tc.project.id;
    const vpc = await api.vpc.create({
      project_id: project,
      name: 'cluster',
      cidr: '10.0.0.0/16',
      region_code: 'us-east-1',
    });
    const handles = await startRuns(client, 'native', RUNS, vpc.id!);
    // Mid-run: every service created, none ready yet; then one worker dies.
    await pollUntil(
      'all creates sent',
      async () => tc.cloud.stats().byAction['service.create']?.total ?? 0,
      (creates) => creates >= RUNS,
      120_000,
    );
    await workers[0]!.kill();

    const reports = (await Promise.all(handles.map((handle) => handle.result()))) as RunReport[];
    expect(reports.map((report) => report.status)).toEqual(Array(RUNS).fill('succeeded'));
    const services = await api.service.list({ project_id: project });
    const names = services.map((service) => service.name).sort();
    expect(names).toEqual(Array.from({ length: RUNS }, (_, i) => `native-${i}`).sort());
    expect(handles).toHaveLength(RUNS);
    expect(services.every((service) => service.status === 'READY')).toBe(true);
    // The Web UI's API lists the finished runs (visibility in PostgreSQL, through the frontend).
    const query = encodeURIComponent(`TaskQueue = "${taskQueue}" AND ExecutionStatus = "Completed"`);
    const listed = await pollUntil(
      'the Web UI to list the runs',
      async () => {
        const response = await fetch(
          `${info.webUiUrl}/api/v1/namespaces/${info.namespace}/workflows?query=${query}`,
        );
        const body = (await response.json()) as {
          executions?: Array<{ execution?: { workflowId?: string } }>;
        };
        return (body.executions ?? []).map((e) => e.execution?.workflowId ?? '').sort();
      },
      (ids) => ids.length >= RUNS,
      60_000,
    );
    expect(listed).toEqual(handles.map((handle) => handle.workflowId).sort());

    // Down stops exactly what up started; a later up finds the runs again.
    await workers[1]!.stop();
    await connection.close();
    connection = undefined;
    const down = await runTideline(['cluster', 'down', '--dir', dir], { timeoutMs: 120_000 });
    expect(down.code).toBe(0);
    expect(alive(info.pids.server)).toBe(false);
    expect(alive(info.pids.postgres)).toBe(false);
    expect(alive(info.pids.ui)).toBe(false);
    const status = await runTideline(['cluster', 'status', '--dir', dir]);
    expect(status.code).toBe(3);

    const again = await cluster('up');
    expect(again.address).toBe(info.address);
    connection = await Connection.connect({ address: again.address });
    const reread = new Client({ connection, namespace: again.namespace });
    const described = await reread.workflow.getHandle(handles[0]!.workflowId).describe();
    expect(described.status.name).toBe('COMPLETED');
    await connection.close();
    connection = undefined;
    const final = await runTideline(['cluster', 'down', '--dir', dir]);
    expect(final.code).toBe(0);
    expect(alive(again.pids.server)).toBe(false);
    expect(alive(again.pids.postgres)).toBe(false);
    expect(alive(again.pids.ui)).toBe(false);
  }, 900_000);

  test('separate service processes: history SIGKILLed mid-run, `up` brings back only it, the runs succeed', async () => {
    separateDir = mkdtempSync(path.join(tmpdir(), 'tideline-native-cluster-separate-'));
    const up = async (): Promise<ClusterInfo> => {
      const result = await runTideline(
        ['cluster', 'up', '--dir', separateDir!, '--separate-services', '--no-web-ui'],
        {
          timeoutMs: 600_000,
        },
      );
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout.split('\n')[0] ?? '') as ClusterInfo;
    };
    const info = await up();
    expect(info.serverProcesses).toBe('separate');
    expect(info.running).toEqual({ postgres: true, server: true });
    const services = info.pids.services!;
    expect(Object.keys(services).sort()).toEqual(['frontend', 'history', 'matching', 'worker']);
    expect(new Set(Object.values(services)).size).toBe(4);
    expect(info.pids.server).toBeUndefined();

    const worker = await startWorkerProcess({
      env: {
        TEMPORAL_ADDRESS: info.address,
        TEMPORAL_NAMESPACE: info.namespace,
        TIDELINE_TASK_QUEUE: taskQueue,
        ...cloudWorkerEnv(tc),
      },
    });
    workers.push(worker);
    const conn = await Connection.connect({ address: info.address });
    try {
      const client = new Client({
        connection: conn,
        namespace: info.namespace,
        dataConverter: createDataConverter(testKeyRing),
      });
      const vpc = await api.vpc.create({
        project_id: tc.project.id,
        name: 'separate',
        cidr: '10.1.0.0/16',
        region_code: 'us-east-1',
      });
      const createsBefore = tc.cloud.stats().byAction['service.create']?.total ?? 0;
      const handles = await startRuns(client, 'separate', 3, vpc.id!);
      await pollUntil(
        'the creates sent',
        async () => (tc.cloud.stats().byAction['service.create']?.total ?? 0) - createsBefore,
        (creates) => creates >= 3,
        120_000,
      );
      expect(await stopClusterService(separateDir, 'history', 'SIGKILL')).toBe(true);
      const down = await runTideline(['cluster', 'status', '--dir', separateDir]);
      expect(down.code).toBe(3);
      expect((JSON.parse(down.stdout.split('\n')[0] ?? '') as ClusterInfo).running.server).toBe(false);

      const again = await up();
      expect(again.running.server).toBe(true);
      const after = again.pids.services!;
      expect(after.history).not.toBe(services.history);
      expect({ ...after, history: 0 }).toEqual({ ...services, history: 0 });

      const reports = (await Promise.all(handles.map((handle) => handle.result()))) as RunReport[];
      expect(reports.map((report) => report.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      const made = (await api.service.list({ project_id: tc.project.id }))
        .map((service) => service.name)
        .filter((name) => name?.startsWith('separate-'))
        .sort();
      expect(made).toEqual(['separate-0', 'separate-1', 'separate-2']);
    } finally {
      await conn.close().catch(() => undefined);
    }
    await worker.stop();
    const stopped = await runTideline(['cluster', 'down', '--dir', separateDir]);
    expect(stopped.code).toBe(0);
    const after = await runTideline(['cluster', 'status', '--dir', separateDir]);
    const last = JSON.parse(after.stdout.split('\n')[0] ?? '') as ClusterInfo;
    expect(last.pids).toEqual({});
    for (const pid of Object.values(services)) expect(alive(pid)).toBe(false);
  }, 600_000);
});
