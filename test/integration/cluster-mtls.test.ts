// The native cluster with mutual TLS (`tideline cluster up --mtls`), run through the real CLI: one
// cluster, its four services as separate processes (so internode calls cross processes over TLS)
// and its Web UI. The certificates are written 0600 under tls/; a client with the printed
// environment (`clientEnv`, Temporal's TEMPORAL_TLS_* variables) is answered through the worker's
// connection, the tideline CLI, `cluster status` and the Web UI, and a worker process with it runs
// a runbook that a client with it started; a raw gRPC client (Node's http2, no SDK) is refused by
// the frontend without TLS, without a certificate and with another CA's certificate, and the
// client certificate does not open the internode ports. The Web UI holds no certificate and is
// read-only: the requests an attacker on this machine sends it (GET / for the CSRF cookie, then a
// start, a terminate, a signal, and the same writes with ids that slip past the UI server's own
// write check, as a batch terminate) change nothing, and its read-only gate, which alone holds the
// client certificate, forwards reads only. Skipped with the reason when the cluster
// cannot be built or PostgreSQL is missing, or when `openssl` is missing (Node cannot issue
// certificates); TIDELINE_REQUIRE_TOOLS=1 makes that a failure.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { provisioningDefinition } from '../../bench/lib/stack';
import { clusterDown, clusterUp, type ClusterInfo } from '../../cluster/cluster';
import { certificateFiles, ensureCertificates, type ClusterCertificates } from '../../cluster/certificates';
import { clusterPaths, newClusterState, readClusterState, writeClusterState } from '../../cluster/state';
import { StackError } from '../../stack/stack-error';
import { createDataConverter } from '../../worker/codec';
import { connectClient, connectWorker, loadTemporalSettings } from '../../worker/connection';
import type { RunbookWorkflowInput, RunReport } from '../../contract/run-messages';
import { runTideline } from '../helpers/cli-process';
import { clusterMissing, ensureClusterBuilt } from '../helpers/cluster-availability';
import {
  GET_SYSTEM_INFO,
  HEALTH_CHECK,
  opensslMissing,
  rawGrpcCall,
  type RawTransport,
} from '../helpers/cluster-tls';
import type { GuardedProcess } from '../helpers/guarded-process';
import { cloudApiClient, cloudWorkerEnv, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { describeWithTools } from '../helpers/tool-requirements';
import { buildDist, startWorkerProcess, testKeyRing } from '../helpers/worker-process';

const scratch: string[] = [];
function tempDir(label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `tideline-${label}-`));
  scratch.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function firstJson<T>(stdout: string): T {
  return JSON.parse(stdout.split('\n')[0] ?? '') as T;
}

describe('cluster mTLS: choices an `up` refuses before starting anything', () => {
  test('--mtls without openssl on PATH: a clear error naming it, and no cluster state left behind', async () => {
    const dir = tempDir('cluster-no-openssl');
    const failure = await clusterUp({ dir, mtls: true, env: { PATH: '' }, log: () => undefined }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StackError);
    expect(failure).toMatchObject({ code: 'CLUSTER_START_FAILED' });
    expect((failure as StackError).message).toMatch(
      /`openssl` command line is not on PATH.*cannot issue X\.509/,
    );
    expect(existsSync(clusterPaths(dir).stateFile)).toBe(false);
  });

  test('an existing cluster without mTLS is not switched to it', async () => {
    const dir = tempDir('cluster-plain');
    writeClusterState(clusterPaths(dir), await newClusterState('default'));
    await expect(clusterUp({ dir, mtls: true, log: () => undefined })).rejects.toMatchObject({
      code: 'CLI_USAGE',
      message: expect.stringMatching(/runs without mTLS/) as unknown,
    });
    expect(readClusterState(clusterPaths(dir))?.mtls).toBe(false);
  });
});

describeWithTools('cluster certificates (openssl)', opensslMissing(), () => {
  let files: ClusterCertificates;
  beforeAll(async () => {
    files = await ensureCertificates(path.join(tempDir('cluster-certs'), 'tls'), process.env);
  });

  test('two CAs, a server certificate for localhost and 127.0.0.1, a client certificate; all 0600 in a 0700 folder', () => {
    expect(statSync(files.dir).mode & 0o777).toBe(0o700);
    for (const file of Object.values(files).filter((value) => value !== files.dir)) {
      expect([file, statSync(file).mode & 0o777]).toEqual([file, 0o600]);
    }
    const read = (file: string) => new X509Certificate(readFileSync(file));
    const [serverCa, clientCa, server, client] = [
      files.serverCa,
      files.clientCa,
      files.serverCert,
      files.clientCert,
    ].map(read);
    expect(serverCa!.ca && clientCa!.ca).toBe(true);
    expect(server!.ca || client!.ca).toBe(false);
    expect(server!.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(server!.checkIssued(serverCa!) && server!.verify(serverCa!.publicKey)).toBe(true);
    expect(client!.checkIssued(clientCa!) && client!.verify(clientCa!.publicKey)).toBe(true);
    expect(client!.verify(serverCa!.publicKey)).toBe(false); // two CAs: a client certificate is no server's
    expect(server!.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']); // serverAuth, clientAuth
    expect(client!.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
  });

  test('a second `up` keeps them; a missing client certificate is issued again by the same CA', async () => {
    const before = readFileSync(files.serverCert, 'utf8');
    const clientBefore = readFileSync(files.clientCert, 'utf8');
    await ensureCertificates(files.dir, process.env);
    expect(readFileSync(files.serverCert, 'utf8')).toBe(before);
    expect(readFileSync(files.clientCert, 'utf8')).toBe(clientBefore);
    rmSync(files.clientKey);
    await ensureCertificates(files.dir, process.env);
    expect(readFileSync(files.serverCert, 'utf8')).toBe(before);
    expect(readFileSync(files.clientCert, 'utf8')).not.toBe(clientBefore);
    const reissued = new X509Certificate(readFileSync(files.clientCert));
    expect(reissued.verify(new X509Certificate(readFileSync(files.clientCa)).publicKey)).toBe(true);
  });
});

describeWithTools('the native cluster with mTLS', clusterMissing() ?? opensslMissing(), () => {
  let dir: string;
  let info: ClusterInfo;
  let tls: ClusterCertificates;
  let ports: { frontend: number; history: number };
  let tc: TestCloud | undefined;
  let worker: GuardedProcess | undefined;

  beforeAll(async () => {
    [tc] = await Promise.all([startTestCloud({ timeScale: 0.05 }), ensureClusterBuilt(), buildDist()]);
    dir = tempDir('cluster-mtls');
    const up = await runTideline(['cluster', 'up', '--dir', dir, '--mtls', '--separate-services'], {
      timeoutMs: 600_000,
    });
    if (up.code !== 0) throw new Error(`cluster up --mtls exited ${up.code}:\n${up.stderr}\n${up.stdout}`);
    info = firstJson<ClusterInfo>(up.stdout);
    tls = certificateFiles(path.join(dir, 'tls'));
    const state = readClusterState(clusterPaths(dir))!;
    ports = { frontend: state.ports.frontend, history: state.ports.history };
  }, 900_000);

  afterAll(async () => {
    await worker?.kill();
    await tc?.close();
    if (dir) await clusterDown(dir).catch(() => undefined);
  });

  test('up prints the client environment; the server config requires client certificates', () => {
    expect(info.mtls).toBe(true);
    expect(info.running).toEqual({ postgres: true, server: true, ui: true });
    expect(info.clientEnv).toEqual({
      TEMPORAL_ADDRESS: info.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TLS_CLIENT_CERT_PATH: tls.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: tls.clientKey,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: tls.serverCa,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    });
    expect(JSON.stringify(info)).not.toMatch(/PRIVATE KEY|password/i);
    for (const file of [tls.serverKey, tls.clientKey, tls.serverCaKey, tls.clientCaKey, tls.clientCert]) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    const config = readFileSync(path.join(dir, 'server', 'config', 'tideline.yaml'), 'utf8');
    expect(config.match(/requireClientAuth: true/g)).toHaveLength(2); // frontend and internode
  });

  test('a client with the printed environment is answered: worker connection, CLI, status, Web UI', async () => {
    // The worker's own path: TEMPORAL_TLS_* read by worker/connection.ts, the Rust core's TLS.
    const connection = await connectWorker(loadTemporalSettings({ env: info.clientEnv }));
    try {
      const { namespaces } = await connection.workflowService.listNamespaces({});
      expect(namespaces.map((ns) => ns.namespaceInfo?.name)).toContain('default');
    } finally {
      await connection.close();
    }
    const list = await runTideline(['list'], { env: info.clientEnv, timeoutMs: 60_000 });
    expect([list.code, list.stderr]).toEqual([0, '']);

    const status = await runTideline(['cluster', 'status', '--dir', dir]);
    expect(status.code).toBe(0);
    expect(firstJson<ClusterInfo>(status.stdout).frontendAnswers).toBe(true);

    // The Web UI calls the frontend with the client certificate.
    const response = await fetch(`${info.webUiUrl}/api/v1/namespaces`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { namespaces?: Array<{ namespaceInfo?: { name?: string } }> };
    expect((body.namespaces ?? []).map((ns) => ns.namespaceInfo?.name)).toContain('default');
  }, 120_000);

  test('a tideline worker with the printed environment runs a runbook a client with it started', async () => {
    const taskQueue = 'cluster-mtls';
    worker = await startWorkerProcess({
      env: { ...info.clientEnv, TIDELINE_TASK_QUEUE: taskQueue, ...cloudWorkerEnv(tc!) },
    });
    const connection = await connectClient(loadTemporalSettings({ env: info.clientEnv }));
    const api = cloudApiClient(tc!);
    try {
      const client = new Client({
        connection,
        namespace: info.namespace,
        dataConverter: createDataConverter(testKeyRing),
      });
      const vpc = await api.vpc.create({
        project_id: tc!.project.id,
        name: 'mtls',
        cidr: '10.0.0.0/16',
        region_code: 'us-east-1',
      });
      const input: RunbookWorkflowInput = {
        definition: provisioningDefinition(),
        inputs: { project_id: tc!.project.id, name: 'mtls-0', vpc_id: vpc.id! },
      };
      const handle = await client.workflow.start('runbookWorkflow', {
        taskQueue,
        workflowId: `cluster-mtls-${Date.now()}`,
        args: [input],
      });
      const report = (await handle.result()) as RunReport;
      expect(report.status).toBe('succeeded');
      expect((await api.service.list({ project_id: tc!.project.id })).map((s) => s.name)).toEqual(['mtls-0']);
    } finally {
      await api.close();
      await connection.close();
    }
    await worker.stop();
  }, 180_000);

  test('the frontend refuses a raw gRPC client without TLS, without a certificate, or with another CA’s', async () => {
    const withCert = { ca: tls.serverCa, cert: tls.clientCert, key: tls.clientKey };
    // The same raw client with the cluster's certificate is answered: what differs below is only the certificate.
    expect(await rawGrpcCall(ports.frontend, withCert, GET_SYSTEM_INFO)).toEqual({
      answered: true,
      grpcStatus: '0',
    });

    const plaintext = await rawGrpcCall(ports.frontend, { plaintext: true }, GET_SYSTEM_INFO);
    expect(plaintext).toMatchObject({ answered: false, serverSpokeHttp2: false });

    const noCertificate = await rawGrpcCall(ports.frontend, { ca: tls.serverCa }, GET_SYSTEM_INFO);
    expect(noCertificate).toMatchObject({
      answered: false,
      code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
      serverSpokeHttp2: false,
    });

    const foreign = await ensureCertificates(path.join(tempDir('cluster-foreign-ca'), 'tls'), process.env);
    const foreignCertificate: RawTransport = {
      ca: tls.serverCa,
      cert: foreign.clientCert,
      key: foreign.clientKey,
    };
    expect(await rawGrpcCall(ports.frontend, foreignCertificate, GET_SYSTEM_INFO)).toMatchObject({
      answered: false,
      code: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
      serverSpokeHttp2: false,
    });
  });

  describe('the Web UI serves reads only, whatever an attacker on this machine sends it', () => {
    const taskQueue = 'cluster-mtls-ui-idle'; // no worker polls it: the run stays open
    let idleId: string;
    let csrf: { cookie: string; token: string };
    let owner: Client;
    let closeOwner: () => Promise<void>;

    beforeAll(async () => {
      const connection = await connectClient(loadTemporalSettings({ env: info.clientEnv }));
      closeOwner = () => connection.close();
      owner = new Client({ connection, namespace: info.namespace });
      idleId = `cluster-mtls-ui-idle-${Date.now()}`;
      await owner.workflow.start('runbookWorkflow', { taskQueue, workflowId: idleId, args: [] });
      // What a browser gets from GET /: the CSRF cookie, readable by the page, echoed in a header.
      const page = await fetch(`${info.webUiUrl}/`);
      expect(page.status).toBe(200);
      await page.arrayBuffer();
      const cookie = page.headers.getSetCookie().find((c) => c.startsWith('_csrf='));
      expect(cookie).toBeDefined();
      const token = cookie!.split(';')[0]!.slice('_csrf='.length);
      csrf = { cookie: `_csrf=${token}`, token };
    }, 60_000);

    afterAll(async () => {
      await owner?.workflow
        .getHandle(idleId)
        .terminate('test cleanup')
        .catch(() => undefined);
      await closeOwner?.();
    });

    /** A same-origin write as the UI's own page sends it: cookie, token header, JSON. */
    const write = async (apiPath: string, body: unknown): Promise<number> => {
      const response = await fetch(`${info.webUiUrl}/api/v1/namespaces/${info.namespace}/${apiPath}`, {
        method: 'POST',
        headers: { cookie: csrf.cookie, 'x-csrf-token': csrf.token, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      return response.status;
    };
    const exists = (workflowId: string) =>
      owner.workflow
        .getHandle(workflowId)
        .describe()
        .then(
          () => true,
          (error: unknown) =>
            error instanceof Error && error.name === 'WorkflowNotFoundError' ? false : Promise.reject(error),
        );
    const idleStatus = async () => (await owner.workflow.getHandle(idleId).describe()).status.name;
    const startBody = (workflowId: string) => ({
      workflowId,
      workflowType: { name: 'runbookWorkflow' },
      taskQueue: { name: taskQueue },
    });

    test('reads answer without a login; the settings say write actions are off', async () => {
      const listed = await fetch(
        `${info.webUiUrl}/api/v1/namespaces/${info.namespace}/workflows?query=${encodeURIComponent(`WorkflowId = '${idleId}'`)}`,
      );
      expect(listed.status).toBe(200);
      const body = (await listed.json()) as { executions?: Array<{ execution?: { workflowId?: string } }> };
      expect((body.executions ?? []).map((e) => e.execution?.workflowId)).toEqual([idleId]);
      const settings = (await (await fetch(`${info.webUiUrl}/api/v1/settings`)).json()) as Record<
        string,
        unknown
      >;
      expect(settings).toMatchObject({
        DisableWriteActions: true,
        StartWorkflowDisabled: true,
        BatchActionsDisabled: true,
      });
      const config = readFileSync(path.join(dir, 'ui', 'config', 'tideline.yaml'), 'utf8');
      expect(config).not.toMatch(/certFile|keyFile|caFile/); // the UI holds no certificate
    });

    test('a start, a terminate and a signal with the CSRF cookie are refused; nothing changes', async () => {
      const startId = `ui-attack-start-${Date.now()}`;
      expect(await write(`workflows/${startId}`, startBody(startId))).toBe(405);
      expect(await write(`workflows/${idleId}/terminate`, { reason: 'ui attack' })).toBe(405);
      expect(await write(`workflows/${idleId}/signal/approve`, { input: null })).toBe(405);
      expect(await write(`workflows/${idleId}/reset`, { reason: 'ui attack' })).toBe(405);
      expect(await exists(startId)).toBe(false);
      expect(await idleStatus()).toBe('RUNNING');
    });

    test('writes whose path slips past the UI server’s check (an escaped "/query/") die at the gate', async () => {
      // The UI server lets POSTs through whose decoded path holds "/workflows/" and "/query/"
      // (workflow queries); an id with escaped slashes makes any write look like one.
      const startId = `ui-attack/query/${Date.now()}`;
      expect(await write(`workflows/${encodeURIComponent(startId)}`, startBody(startId))).toBe(403);
      const jobId = `ui-attack/workflows/query/${Date.now()}`;
      const batch = {
        jobId,
        visibilityQuery: `WorkflowId = '${idleId}'`,
        reason: 'ui attack',
        terminationOperation: {},
      };
      expect(await write(`batch-operations/${encodeURIComponent(jobId)}`, batch)).toBe(403);
      expect(await exists(startId)).toBe(false);
      expect(await idleStatus()).toBe('RUNNING');
      const gateLog = readFileSync(path.join(dir, 'ui', 'gate.log'), 'utf8');
      expect(gateLog).toContain(
        'refused /temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution',
      );
      expect(gateLog).toContain(
        'refused /temporal.api.workflowservice.v1.WorkflowService/StartBatchOperation',
      );
    });

    test('a cross-site write (another origin, no token) is refused', async () => {
      const startId = `ui-attack-cross-site-${Date.now()}`;
      const response = await fetch(
        `${info.webUiUrl}/api/v1/namespaces/${info.namespace}/workflows/${startId}`,
        {
          method: 'POST',
          headers: { origin: 'https://attacker.example', 'content-type': 'text/plain' },
          body: JSON.stringify(startBody(startId)),
        },
      );
      await response.arrayBuffer();
      expect(response.status).toBe(400);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(await exists(startId)).toBe(false);
    });

    test('the gate itself, called raw without a certificate, answers reads and refuses writes', async () => {
      const gatePort = readClusterState(clusterPaths(dir))!.ports.uiGate!;
      expect(info.pids.uiGate).toBeDefined();
      expect(await rawGrpcCall(gatePort, { plaintext: true }, GET_SYSTEM_INFO)).toEqual({
        answered: true,
        grpcStatus: '0',
      });
      for (const method of [
        'StartWorkflowExecution',
        'TerminateWorkflowExecution',
        'SignalWorkflowExecution',
        'ResetWorkflowExecution',
        'StartBatchOperation',
        'CreateSchedule',
        'UpdateNamespace',
      ]) {
        const outcome = await rawGrpcCall(
          gatePort,
          { plaintext: true },
          `/temporal.api.workflowservice.v1.WorkflowService/${method}`,
        );
        expect({ method, outcome }).toEqual({ method, outcome: { answered: true, grpcStatus: '7' } });
      }
      expect(await idleStatus()).toBe('RUNNING');
    });
  });

  test('the internode ports accept only the server CA: the client certificate does not open history', async () => {
    const client = { ca: tls.serverCa, cert: tls.clientCert, key: tls.clientKey };
    expect(await rawGrpcCall(ports.history, client, HEALTH_CHECK)).toMatchObject({
      answered: false,
      code: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
    });
    const server = { ca: tls.serverCa, cert: tls.serverCert, key: tls.serverKey };
    expect(await rawGrpcCall(ports.history, server, HEALTH_CHECK)).toEqual({
      answered: true,
      grpcStatus: '0',
    });
  });
});
