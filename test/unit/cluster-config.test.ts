// The native cluster's pure parts (`tideline cluster`, cluster/): the state file's schema and
// mode, the server config it renders, and how bench:chaos keeps the cluster rounds next to the
// dev-server rounds. The processes themselves are exercised by test/integration/cluster-native.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keepSavedClusterRounds, mergeClusterRounds } from '../../bench/cluster-chaos';
import type { Disruption, RoundResult } from '../../bench/chaos/campaign';
import { assertServerRunning } from '../../cluster/server';
import { PASSWORD_ENV, renderServerConfig, writeServerConfig } from '../../cluster/server-config';
import {
  CLUSTER_STATE_SCHEMA,
  NEW_CLUSTER_SHARDS,
  clusterPaths,
  newClusterState,
  readClusterState,
  withUiPort,
  writeClusterState,
} from '../../cluster/state';
import { isReadOnlyCall } from '../../cluster/read-only-gate';
import { gateMarker, renderUiConfig, uiMarker, webUiUrl } from '../../cluster/web-ui';
import { serverMarker } from '../../cluster/server-config';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-cluster-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('cluster state', () => {
  test('a new cluster picks distinct loopback ports, membership ports fit a smallint', async () => {
    const state = await newClusterState('default');
    const ports = Object.values(state.ports);
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThanOrEqual(32_767);
    expect(state.numHistoryShards).toBe(NEW_CLUSTER_SHARDS);
    expect(state.postgres.password.length).toBeGreaterThanOrEqual(16);
  });

  test('a membership port above 32767 is rejected (the schema stores it in a smallint)', async () => {
    const state = await newClusterState('default');
    const bad = { ...state, ports: { ...state.ports, historyMembership: 40_000 } };
    expect(CLUSTER_STATE_SCHEMA.safeParse(bad).success).toBe(false);
    const ok = { ...state, ports: { ...state.ports, frontend: 40_000 } };
    expect(CLUSTER_STATE_SCHEMA.safeParse(ok).success).toBe(true);
  });

  test('the state file is written 0600 and read back; a damaged one is an error, not replaced', async () => {
    const paths = clusterPaths(dir);
    const state = await newClusterState('ops');
    writeClusterState(paths, state);
    expect(statSync(paths.stateFile).mode & 0o777).toBe(0o600);
    expect(readClusterState(paths)).toEqual(state);

    writeFileSync(paths.stateFile, '{"version": 1, "namespace": ""}');
    expect(() => readClusterState(paths)).toThrow(/not a tideline cluster state file/);
    writeFileSync(paths.stateFile, 'not json');
    expect(() => readClusterState(paths)).toThrow(/not valid JSON/);
    expect(readFileSync(paths.stateFile, 'utf8')).toBe('not json');
  });
});

describe('server config', () => {
  test('PostgreSQL on loopback, the password only as a template reference, every service on 127.0.0.1', async () => {
    const state = await newClusterState('default');
    const config = renderServerConfig(state, '/x/dynamic-config.yaml');
    expect(config.startsWith('# enable-template\n')).toBe(true);
    expect(config).not.toContain(state.postgres.password);
    expect(config).toContain(`password: "{{ env "${PASSWORD_ENV}" }}"`);
    expect(config).toContain(`connectAddr: "127.0.0.1:${state.ports.postgres}"`);
    expect(config).toContain(`numHistoryShards: ${state.numHistoryShards}`);
    for (const service of ['frontend', 'history', 'matching', 'worker']) {
      expect(config).toMatch(new RegExp(`\\n  ${service}:\\n    rpc:\\n`));
    }
    expect(config.match(/bindOnIP: "127\.0\.0\.1"/g)).toHaveLength(4);
    expect(config).toContain(`membershipPort: ${state.ports.historyMembership}`);
  });

  test('the written files are private and hold no password', async () => {
    const paths = clusterPaths(dir);
    const state = await newClusterState('default');
    const args = writeServerConfig(paths, state);
    expect(args).toEqual(expect.arrayContaining(['--root', paths.dir, '--env', 'tideline', 'start']));
    for (const file of ['tideline.yaml', 'dynamic-config.yaml']) {
      const full = path.join(paths.serverConfigDir, file);
      expect(statSync(full).mode & 0o777).toBe(0o600);
      expect(readFileSync(full, 'utf8')).not.toContain(state.postgres.password);
    }
    expect(args.join(' ')).not.toContain(state.postgres.password);
  });
});

describe('server processes', () => {
  /** Above the kernel's largest pid_max (2^22): no process has it. */
  const GONE = 4_194_305;

  test('`up` fails naming the service processes that are gone and the end of their log, never reports them running', async () => {
    const paths = clusterPaths(dir);
    const state = await newClusterState('default', 'separate');
    const dead = { ...state, pids: { services: { history: GONE, matching: GONE + 1 } } };
    mkdirSync(path.dirname(paths.serverLog), { recursive: true });
    writeFileSync(
      path.join(path.dirname(paths.serverLog), 'history.log'),
      'failed to initialize current cluster metadata\n',
    );
    expect(() => assertServerRunning(paths, dead)).toThrow(
      /history service, matching service, frontend service, worker service exited[^]*history\.log:\nfailed to initialize current cluster metadata/,
    );
    expect(() =>
      assertServerRunning(paths, { ...state, serverProcesses: 'one', pids: { server: GONE } }),
    ).toThrow(/Temporal server exited/);
  });
});

describe('web UI', () => {
  test('a state file from before the Web UI and service processes is read; `up` gives it a distinct UI port', async () => {
    const paths = clusterPaths(dir);
    const { ui: _ui, ...oldPorts } = (await newClusterState('default')).ports;
    const { serverProcesses: _mode, ...old } = { ...(await newClusterState('default')), ports: oldPorts };
    writeFileSync(paths.stateFile, JSON.stringify(old));
    const read = readClusterState(paths)!;
    expect(read.serverProcesses).toBe('one'); // files from before separate service processes
    expect(read.ports.ui).toBeUndefined();
    expect(webUiUrl(read)).toBeUndefined();
    const withUi = await withUiPort(read);
    expect(Object.values(withUi.ports).filter((p) => p === withUi.ports.ui)).toHaveLength(1);
    expect(webUiUrl(withUi)).toBe(`http://127.0.0.1:${withUi.ports.ui}`);
    expect(await withUiPort(withUi)).toEqual(withUi);
  });

  test('the UI serves 127.0.0.1 only, talks to the frontend, opens the namespace; markers tell UI and server apart', async () => {
    const state = await newClusterState('ops');
    const config = renderUiConfig(state);
    expect(config).toContain(`temporalGrpcAddress: "127.0.0.1:${state.ports.frontend}"`);
    expect(config).toContain('host: "127.0.0.1"');
    expect(config).toContain(`port: ${state.ports.ui}`);
    expect(config).toContain('defaultNamespace: "ops"');
    expect(config).not.toContain(state.postgres.password);
    const paths = clusterPaths(dir);
    const uiCommandLine = `/bin/ui-server --root ${paths.uiDir} --config config --env tideline start`;
    const serverCommandLine = `/bin/server --root ${paths.dir} --config server/config --env tideline start`;
    expect(uiCommandLine).toContain(uiMarker(paths));
    expect(uiCommandLine).not.toContain(serverMarker(paths));
    expect(serverCommandLine).not.toContain(uiMarker(paths));
    expect(config).not.toContain('disableWriteActions'); // without mTLS the frontend is open anyway
  });

  test('with mTLS the UI holds no certificate, calls the read-only gate, and has its write actions off', async () => {
    const state = await withUiPort(await newClusterState('ops', 'one', { mtls: true }));
    expect(state.ports.uiGate).toBeDefined();
    expect(await withUiPort(state)).toEqual(state);
    const config = renderUiConfig(state);
    expect(config).toContain(`temporalGrpcAddress: "127.0.0.1:${state.ports.uiGate}"`);
    expect(config).not.toContain(`${state.ports.frontend}`);
    expect(config).not.toMatch(/^tls:|certFile|keyFile/m);
    for (const line of [
      'disableWriteActions: true',
      'startWorkflowDisabled: true',
      'batchActionsDisabled: true',
    ])
      expect(config).toContain(line);
    const paths = clusterPaths(dir);
    expect(`node /x/read-only-gate-main.js --gate ${paths.uiDir}/gate.json`).toContain(gateMarker(paths));
    expect(`/bin/ui-server --root ${paths.uiDir} --config config --env tideline start`).not.toContain(
      gateMarker(paths),
    );
  });
});

describe('the read-only gate of an mTLS cluster’s Web UI', () => {
  const workflow = (method: string) => `/temporal.api.workflowservice.v1.WorkflowService/${method}`;

  test('forwards the reads the Web UI makes', () => {
    for (const method of [
      'ListNamespaces',
      'DescribeNamespace',
      'ListWorkflowExecutions',
      'CountWorkflowExecutions',
      'DescribeWorkflowExecution',
      'GetWorkflowExecutionHistory',
      'QueryWorkflow',
      'GetSystemInfo',
      'ListSchedules',
    ])
      expect({ method, forwarded: isReadOnlyCall(workflow(method)) }).toEqual({ method, forwarded: true });
    expect(isReadOnlyCall('/temporal.api.operatorservice.v1.OperatorService/ListSearchAttributes')).toBe(
      true,
    );
  });

  test('refuses every write, admin call, unknown method and look-alike path', () => {
    for (const method of [
      'StartWorkflowExecution',
      'SignalWithStartWorkflowExecution',
      'SignalWorkflowExecution',
      'TerminateWorkflowExecution',
      'RequestCancelWorkflowExecution',
      'ResetWorkflowExecution',
      'UpdateWorkflowExecution',
      'ExecuteMultiOperation',
      'StartBatchOperation',
      'CreateSchedule',
      'PatchSchedule',
      'DeleteSchedule',
      'UpdateNamespace',
      'RegisterNamespace',
      'PollWorkflowTaskQueue',
      'RespondActivityTaskCompleted',
    ])
      expect({ method, forwarded: isReadOnlyCall(workflow(method)) }).toEqual({ method, forwarded: false });
    for (const other of [
      '/temporal.api.operatorservice.v1.OperatorService/AddSearchAttributes',
      '/temporal.api.operatorservice.v1.OperatorService/DeleteNamespace',
      '/temporal.server.api.adminservice.v1.AdminService/DescribeCluster',
      `${workflow('ListNamespaces')}/`,
      `${workflow('ListNamespaces')}?x`,
      workflow('listnamespaces'),
      '/x/temporal.api.workflowservice.v1.WorkflowService/ListNamespaces',
    ])
      expect({ other, forwarded: isReadOnlyCall(other) }).toEqual({ other, forwarded: false });
  });
});

describe('chaos results: cluster rounds next to the dev-server rounds', () => {
  const roundOf = (disruption: Disruption, tag: string): RoundResult =>
    ({ disruption, runs: 50, tag }) as unknown as RoundResult;
  const names = (rounds: RoundResult[]): string[] =>
    rounds.map((r) => `${r.disruption}:${(r as unknown as { tag: string }).tag}`);
  const saved = [
    roundOf('worker-kill', 'old'),
    roundOf('server-restart', 'old'),
    roundOf('cluster-worker-kill', 'old'),
    roundOf('cluster-server-kill', 'old'),
    roundOf('cluster-postgres-stop', 'old'),
  ];

  test('a full dev-server campaign replaces its rounds and keeps the saved cluster rounds', () => {
    const fresh = [roundOf('worker-kill', 'new'), roundOf('server-restart', 'new')];
    expect(names(keepSavedClusterRounds(saved, fresh))).toEqual([
      'worker-kill:new',
      'server-restart:new',
      'cluster-worker-kill:old',
      'cluster-server-kill:old',
      'cluster-postgres-stop:old',
    ]);
  });

  test('a --cluster campaign replaces the cluster rounds and keeps the dev-server rounds', () => {
    const fresh = [roundOf('cluster-worker-kill', 'new'), roundOf('cluster-postgres-stop', 'new')];
    expect(names(mergeClusterRounds(saved, fresh))).toEqual([
      'worker-kill:old',
      'server-restart:old',
      'cluster-worker-kill:new',
      'cluster-postgres-stop:new',
    ]);
  });
});
