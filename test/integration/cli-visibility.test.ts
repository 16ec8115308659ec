// The CLI side of runbook-level visibility, with the real `tideline` binary and worker process:
// `list --service / --project / --state` query the runs' search attributes and list newest first;
// `run` gives the run a static summary without its secret inputs; `history` of a rolled-back run
// names the created service and its deletion by compensation; a worker pointed at a namespace
// without the attributes stops with one line (exit 2), and `tideline setup` registers them,
// idempotently.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import { createVpc, pollUntil } from '../helpers/runbook-fixtures';
import { jsonOutput, runTideline } from '../helpers/cli-process';
import { expectSecretsNotStored, readStoredHistory } from '../helpers/stored-history';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server';
import {
  buildDist,
  REPO_ROOT,
  startWorkerProcess,
  WORKER_ENTRY,
  workerEnvironment,
} from '../helpers/worker-process';
import { provisionRunArgs, useCliStack } from '../helpers/cli-stack';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
const VISIBLE_MS = 60_000;

interface Listed {
  runs: {
    workflowId: string;
    runbook: string | null;
    status: string;
    state: string | null;
    startTime: string;
  }[];
}

describe('tideline list, run and history with search attributes', () => {
  const cli = useCliStack();
  const { tideline } = cli;
  const listed = async (...args: string[]): Promise<Listed['runs']> =>
    jsonOutput<Listed>(await tideline('list', '--json', ...args)).runs;

  test('list --service, --project and --state find runs; newest first', async () => {
    const vpcId = await createVpc(cli.stack, { name: 'vis', cidr: '10.7.0.0/16' });
    // Started first and closed last (rejected below): newest first by start time lists it after
    // the runs started later, where Temporal's own order (by close time) puts it first.
    const waiting = await tideline(
      'run',
      path.relative(REPO_ROOT, path.join(FIXTURES, 'kinds', 'approval-open.yaml')),
      '--id',
      'vis-waiting',
      '--detach',
    );
    expect(waiting.code).toBe(0);
    const rolledBack = await tideline(
      ...provisionRunArgs({ projectId: cli.stack.projectId, name: 'vis-doomed', vpcId: '999999' }),
      '--id',
      'vis-rolled-back',
    );
    expect(rolledBack.code).toBe(1);
    const provisioned = await tideline(
      ...provisionRunArgs({ projectId: cli.stack.projectId, name: 'vis-orders', vpcId }),
      '--id',
      'vis-provisioned',
      '--json',
    );
    expect(provisioned.code).toBe(0);
    const serviceId = jsonOutput<{ outputs: { service_id: string } }>(provisioned).outputs.service_id;

    const byService = await pollUntil(
      'list --service',
      () => listed('--service', serviceId),
      (runs) => runs.some((r) => r.workflowId === 'vis-provisioned'),
      VISIBLE_MS,
    );
    expect(byService.map((r) => r.workflowId)).toEqual(['vis-provisioned']);
    expect(byService[0]).toMatchObject({ runbook: 'provision-production-service', state: 'succeeded' });

    const byState = await pollUntil(
      'list --state waiting-for-approval',
      () => listed('--state', 'waiting-for-approval'),
      (runs) => runs.some((r) => r.workflowId === 'vis-waiting'),
      VISIBLE_MS,
    );
    expect(byState.map((r) => r.workflowId)).toEqual(['vis-waiting']);
    const table = await tideline('list', '--state', 'waiting-for-approval');
    expect(table.stdout).toMatch(/^vis-waiting +approval-open +waiting-for-approval +/m);

    const failed = await pollUntil(
      'list --project --state failed',
      () => listed('--project', cli.stack.projectId, '--state', 'failed'),
      (runs) => runs.some((r) => r.workflowId === 'vis-rolled-back'),
      VISIBLE_MS,
    );
    expect(failed.every((r) => r.status === 'failed')).toBe(true);

    // Newest first by start time, also for the run that closed last.
    expect((await tideline('reject', 'vis-waiting', '-m', 'test over')).code).toBe(0);
    const all = await pollUntil(
      'the rejected run to be listed closed',
      () => listed('--limit', '50'),
      (runs) => runs.some((r) => r.workflowId === 'vis-waiting' && r.status === 'failed'),
      VISIBLE_MS,
    );
    const order = all.map((r) => r.workflowId).filter((id) => id.startsWith('vis-'));
    expect(order).toEqual(['vis-provisioned', 'vis-rolled-back', 'vis-waiting']);
    const starts = all.map((r) => Date.parse(r.startTime));
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
    const limited = await listed('--limit', '2');
    expect(limited.map((r) => r.workflowId)).toEqual(all.slice(0, 2).map((r) => r.workflowId));

    const bad = await tideline('list', '--state', 'sleeping');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown --state "sleeping"');
    const quoted = await tideline('list', '--service', "x' OR 'a'='a");
    expect(quoted.code).toBe(2);

    // The rolled-back run's history names the service it created and its deletion.
    const history = await tideline('history', 'vis-rolled-back');
    expect(history.stdout).toMatch(
      /^create +call +compensated .*created service (\S+) · deleted by compensation \(create\/undo\.delete_service\)$/m,
    );
  }, 180_000);

  test('run gives the run a static summary without its secret inputs', async () => {
    const result = await runTideline(
      [
        'run',
        path.relative(REPO_ROOT, path.join(FIXTURES, 'cli', 'quick.yaml')),
        '-i',
        'greeting=hi',
        '--id',
        'vis-summary',
        ...cli.flags,
      ],
      { env: { TIDELINE_INPUT_TOKEN: 'summary-secret-value' } },
    );
    expect(result.code).toBe(0);
    const description = await cli.stack.client.workflow.getHandle('vis-summary').describe();
    expect(await description.staticSummary()).toBe('cli-quick: greeting=hi');
    const details = await description.staticDetails();
    expect(details).toContain('- token: (secret)');
    expect(details).not.toContain('summary-secret-value');
    // Nowhere readable at rest: history, search attributes, summary and details as stored.
    expectSecretsNotStored(
      await readStoredHistory(cli.stack.client.connection as Connection, 'vis-summary'),
      ['summary-secret-value'],
    );
  }, 60_000);
});

describe('a namespace without the search attributes', () => {
  let server: TemporalServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    await buildDist();
    server = await startTemporalServer({ searchAttributes: {} });
    env = workerEnvironment({
      TEMPORAL_ADDRESS: server.address,
      TIDELINE_TASK_QUEUE: 'no-attributes',
      // Nothing listens there; the worker stops (or is stopped) before any activity could run.
      TIDELINE_CLOUD_URL: 'http://127.0.0.1:9/public/api/v1',
      TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
      TIDELINE_CLOUD_PROJECT_ID: 'proj000001',
      TIDELINE_CLOUD_ACCESS_KEY: 'AK-test',
      TIDELINE_CLOUD_SECRET_KEY: 'sk-test-secret',
    });
  }, 240_000);
  afterAll(async () => server?.stop());

  function workerToEnd(): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [WORKER_ENTRY], {
        cwd: REPO_ROOT,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code, stderr }));
    });
  }

  test('the worker says so in one line and exits 2; tideline setup registers them, idempotently', async () => {
    const refused = await workerToEnd();
    expect(refused.code).toBe(2);
    const lines = refused.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `tideline worker: namespace "default" on ${server.address} lacks tideline's search attributes ` +
        'TidelineRunbook (Keyword), TidelineProject (Keyword), TidelineServices (KeywordList), TidelineState (Keyword), ' +
        'TidelineAwaitingApproval (KeywordList); ' +
        `register them with \`tideline setup --address ${server.address} --namespace default\` or ` +
        '`temporal operator search-attribute create --namespace default --name TidelineRunbook --type Keyword ' +
        '--name TidelineProject --type Keyword --name TidelineServices --type KeywordList --name TidelineState --type Keyword ' +
        '--name TidelineAwaitingApproval --type KeywordList` ' +
        "(Temporal Cloud: add them in the namespace's settings or with `tcld namespace search-attributes add`)",
    );

    const address = ['--address', server.address];
    const check = await runTideline(['setup', '--check', ...address]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'lacks TidelineRunbook, TidelineProject, TidelineServices, TidelineState, TidelineAwaitingApproval',
    );
    const first = await runTideline(['setup', '--json', ...address]);
    expect(first.code).toBe(0);
    expect(jsonOutput(first)).toEqual({
      namespace: 'default',
      added: [
        'TidelineRunbook',
        'TidelineProject',
        'TidelineServices',
        'TidelineState',
        'TidelineAwaitingApproval',
      ],
      missing: [],
      present: [],
    });
    const again = await runTideline(['setup', ...address]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already has');
    expect((await runTideline(['setup', '--check', ...address])).code).toBe(0);

    const worker = await startWorkerProcess({ env });
    await worker.stop();
  }, 180_000);
});
