// The native cluster (`tideline cluster up|down`, the pinned Temporal server on PostgreSQL) in a
// temporary directory, run through the real CLI: two worker processes, ten provisioning runs, one
// worker SIGKILLed while runs are in flight; every run succeeds with exactly one service in the
// local cloud. `up` again is a no-op on the same ports; `down` leaves no process behind, and a
// later `up` finds the runs again (the data lives in the directory). The cluster's Web UI serves its
// page and lists the runs from PostgreSQL through the frontend. Skipped with a printed reason when
// the server cannot be built (no Go) or PostgreSQL is missing and cannot be installed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { pollUntil } from '../../bench/lib/cancel-runs';
import { provisioningDefinition } from '../../bench/lib/stack';
import type { CloudClient } from '../../cloud/client';
import { clusterDown, type ClusterInfo } from '../../cli/cluster/cluster';
import { isOurProcess } from '../../cli/cluster/processes';
import { cachedClusterUi } from '../../scripts/setup-cluster';
import { createDataConverter } from '../../worker/codec';
import type { RunbookWorkflowInput, RunReport } from '../../workflows/messages';
import { runTideline } from '../helpers/cli-process';
import { clusterUnavailableReason } from '../helpers/cluster-availability';
import type { GuardedProcess } from '../helpers/guarded-process';
import { cloudApiClient, cloudWorkerEnv, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { buildDist, startWorkerProcess, testKeyRing } from '../helpers/worker-process';

const RUNS = 10;
const taskQueue = `native-cluster-${randomBytes(4).toString('hex')}`;

let skipReason: string | undefined;
let dir: string;
let tc: TestCloud;
let api: CloudClient;
let connection: Connection | undefined;
const workers: GuardedProcess[] = [];

async function cluster(action: 'up' | 'down' | 'status'): Promise<ClusterInfo> {
  const result = await runTideline(['cluster', action, '--dir', dir], { timeoutMs: 600_000 });
  if (result.code !== 0) {
    throw new Error(`tideline cluster ${action} exited ${result.code}:\n${result.stderr}\n${result.stdout}`);
  }
  return JSON.parse(result.stdout.split('\n')[0] ?? '') as ClusterInfo;
}

function alive(pid: number | undefined): boolean {
  return pid !== undefined && isOurProcess(pid, '');
}

beforeAll(async () => {
  skipReason = await clusterUnavailableReason();
  if (skipReason !== undefined) return;
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
  if (dir) {
    await clusterDown(dir).catch(() => undefined); // whatever a failed case left running
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cluster up → two workers, one SIGKILLed mid-run → 10 runs succeed, one service each → down', async () => {
  if (skipReason !== undefined) {
    console.warn(`native cluster test skipped: ${skipReason}`);
    return;
  }
  const info = await cluster('up');
  // `up` builds the Web UI server when missing; without it (a failed build) the cluster runs alone.
  const webUi = cachedClusterUi() !== undefined;
  if (!webUi)
    console.warn('native cluster test: the Web UI server could not be built; its checks are skipped');
  expect(info.running).toEqual({ postgres: true, server: true, ...(webUi ? { ui: true } : {}) });
  expect(info.address).toMatch(/^127\.0\.0\.1:\d+$/);
  if (webUi) {
    expect(info.webUiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(info.webUiUrl!);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
  }
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
  const handles: WorkflowHandle[] = [];
  for (let i = 0; i < RUNS; i++) {
    const input: RunbookWorkflowInput = {
      definition: provisioningDefinition(),
      inputs: { project_id: project, name: `native-${i}`, vpc_id: vpc.id! },
    };
    handles.push(
      await client.workflow.start('runbookWorkflow', {
        taskQueue,
        workflowId: `native-${i}-${randomBytes(3).toString('hex')}`,
        args: [input],
      }),
    );
  }
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
  expect(services.every((service) => service.status === 'READY')).toBe(true);
  if (webUi) {
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
  }

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
