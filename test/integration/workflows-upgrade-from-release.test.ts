// Runs that outlive a release, with a real earlier release: the worker process of the newest
// release in releases/releases.json (built from its commit by scripts/setup-releases.js) and the
// worker process of the code in the tree serve the same task queue of a Temporal dev server, in
// turn or side by side, against the local cloud. Four runs are left where runs wait for days —
// at an approval, held at a failed step, in a long wait, in the middle of a foreach over a fleet —
// and then handed over:
//   - upgrade: the release's worker stops, the tree's starts, and finishes every run;
//   - rolling deploy: the tree's worker joins the release's, the runs go on, the release's stops;
//   - rollback: runs started on the tree's worker cannot be replayed by the release's (the tree
//     records a patch it lacks): their tasks fail there, and the tree's worker finishes them.
// Each run must succeed; upgrades with no failed workflow task, and histories showing both builds.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { BuiltRelease } from '../../scripts/setup-releases';
import { loadRunbookFile } from '../../dsl/loader';
import {
  progressQuery,
  retryUpdate,
  type RunReport,
  type RunbookWorkflowInput,
} from '../../contract/run-messages';
import type { GuardedProcess } from '../helpers/guarded-process';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import {
  bundleBuildId,
  loadReleaseRunbook,
  previousRelease,
  scheduledActivities,
  servedBy,
  settleRun,
  startReleaseWorker,
} from '../helpers/release-workers';
import {
  createVpc,
  decide,
  pollUntil,
  seedService,
  waitForApproval,
  waitForStep,
} from '../helpers/runbook-fixtures';
import type { RunbookStack } from '../helpers/runbook-stack';
import { REPO_ROOT, startWorkerProcess } from '../helpers/worker-process';

const FLEET_SIZE = 8;
/** Generous: two busy cores, other suites running beside this one. */
const STATE_TIMEOUT_MS = 120_000;
const SETTLE_TIMEOUT_MS = 240_000;

let stack: ProcessWorkerStack;
let release: BuiltRelease;
let releaseBuildId: string;
const workers: GuardedProcess[] = [];

beforeAll(async () => {
  [release, stack] = await Promise.all([
    previousRelease(),
    // The earlier releases' clients read the seed dialect (the current one adds service types
    // their response schemas refuse), so the cloud both sides share answers in it.
    startProcessWorkerStack({ taskQueue: 'unused', cloud: { timeScale: 0.05, dialect: 'seed' } }),
  ]);
  releaseBuildId = bundleBuildId(release.workflowBundle);
}, 300_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await stack?.close();
});

/** seedService and createVpc want a stack; a process-worker stack has what they use. */
function project(): RunbookStack {
  return { api: stack.api, projectId: stack.cloud.project.id } as unknown as RunbookStack;
}

type Build = 'release' | 'tree';

async function startWorker(build: Build, taskQueue: string): Promise<GuardedProcess> {
  const env = { ...stack.workerEnv(), TIDELINE_TASK_QUEUE: taskQueue };
  const worker =
    build === 'release' ? await startReleaseWorker(release, env) : await startWorkerProcess({ env });
  workers.push(worker);
  return worker;
}

async function stopWorker(worker: GuardedProcess): Promise<void> {
  await worker.stop();
  workers.splice(workers.indexOf(worker), 1);
}

interface Scenario {
  taskQueue: string;
  approval: WorkflowHandle;
  held: WorkflowHandle;
  waiting: WorkflowHandle;
  fleet: WorkflowHandle;
  parentId: string;
  waitTargetId: string;
  fleetIds: string[];
}

/**
 * Starts a runbook as the CLI of `build` would: that build's runbook file (a file it did not ship,
 * from the tree) read by that build's own loader, whose normalised definition the run pins.
 */
function start(
  build: Build,
  taskQueue: string,
  file: string,
  inputs: Record<string, unknown>,
): Promise<WorkflowHandle> {
  const definition =
    build === 'release' ? loadReleaseRunbook(release, file) : loadRunbookFile(path.join(REPO_ROOT, file));
  const input: RunbookWorkflowInput = { definition, inputs };
  return stack.client.workflow.start('runbookWorkflow', {
    taskQueue,
    workflowId: `${definition.name}-${randomBytes(4).toString('hex')}`,
    args: [input],
  });
}

/**
 * Starts the four runs on whatever worker polls `taskQueue` and returns once each waits where
 * it should: the approval pending, the provisioning held at its pooler (its first attempt is
 * answered 503), the wait polling, and the fleet's foreach with at least one service stopped and
 * more to go.
 */
async function leaveRunsWaiting(
  build: Build,
  tag: string,
  taskQueue: string,
  cidr: string,
  readyTimeout = '30m',
): Promise<Scenario> {
  const api = stack.api;
  const projectId = stack.cloud.project.id;
  const vpcId = await createVpc(project(), { name: `vpc-${tag}`, cidr });
  const [parent, waitTarget, ...fleetServices] = await Promise.all([
    seedService(project(), { name: `parent-${tag}`, environment: 'PROD', vpcId }),
    seedService(project(), { name: `quiet-${tag}` }),
    ...Array.from({ length: FLEET_SIZE }, (_, i) => seedService(project(), { name: `fleet-${tag}-${i}` })),
  ]);
  const fleetIds = fleetServices.map((s) => s.service_id!);
  await Promise.all(
    fleetIds.map((service_id) =>
      api.service.setEnvironment({ project_id: projectId, service_id, environment: 'DEV' }),
    ),
  );
  stack.cloud.cloud.addFaults([{ action: 'service.enablePooler', kind: 'error', status: 503, times: 1 }]);
  const [approval, held, waiting] = await Promise.all([
    start(build, taskQueue, 'runbooks/fork-and-promote.yaml', {
      project_id: projectId,
      service_id: parent.service_id,
      require_approval: true,
      ready_timeout: readyTimeout,
    }),
    start(build, taskQueue, 'test/fixtures/hold/provision-hold.yaml', {
      project_id: projectId,
      name: `held-${tag}`,
    }),
    start(build, taskQueue, 'test/fixtures/upgrade/wait-for-prod.yaml', {
      project_id: projectId,
      service_id: waitTarget.service_id,
    }),
  ]);
  await Promise.all([
    waitForApproval(approval, STATE_TIMEOUT_MS),
    pollUntil(
      'the provisioning run to hold',
      () => held.query(progressQuery),
      (p) => p.status === 'held',
      STATE_TIMEOUT_MS,
    ),
    waitForStep(waiting, 'tagged', 'running', STATE_TIMEOUT_MS),
  ]);
  // Last, so that it is still in its foreach when the others wait: two services at a time.
  const fleet = await start(build, taskQueue, 'runbooks/stop-dev-services.yaml', {
    project_id: projectId,
    name_prefix: `fleet-${tag}-`,
    concurrency: 2,
  });
  await pollUntil(
    'a first service of the fleet to be stopped',
    () => Promise.all(fleetIds.map((service_id) => api.service.get({ project_id: projectId, service_id }))),
    (services) => services.some((s) => s.status === 'PAUSED'),
    STATE_TIMEOUT_MS,
  );
  return {
    taskQueue,
    approval,
    held,
    waiting,
    fleet,
    parentId: parent.service_id!,
    waitTargetId: waitTarget.service_id!,
    fleetIds,
  };
}

/** Failed workflow tasks per run, by name. */
type KnownFailures = Partial<Record<string, number>>;

/** Approves, retries, wakes the wait; every run must then succeed. */
async function finishRuns(scenario: Scenario, known: KnownFailures = {}): Promise<Record<string, RunReport>> {
  await decide(scenario.approval, { approved: true, by: 'upgrade-test' });
  await scenario.held.executeUpdate(retryUpdate, { args: [{ step: 'pooler', by: 'upgrade-test' }] });
  await stack.api.service.setEnvironment({
    project_id: stack.cloud.project.id,
    service_id: scenario.waitTargetId,
    environment: 'PROD',
  });
  return settleAll(scenario, known);
}

/** The four runs by name. */
function runsOf(scenario: Scenario): Record<string, WorkflowHandle> {
  const { approval, held, waiting, fleet } = scenario;
  return { approval, held, waiting, fleet };
}

async function settleAll(scenario: Scenario, known: KnownFailures = {}): Promise<Record<string, RunReport>> {
  const runs = runsOf(scenario);
  const reports = await Promise.all(
    Object.entries(runs).map(
      async ([name, handle]) =>
        [name, await settleRun(name, handle, SETTLE_TIMEOUT_MS, known[name] ?? 0)] as const,
    ),
  );
  return Object.fromEntries(reports);
}

function expectFinished(scenario: Scenario, reports: Record<string, RunReport>): void {
  expect(Object.fromEntries(Object.entries(reports).map(([name, r]) => [name, r.status]))).toEqual({
    approval: 'succeeded',
    held: 'succeeded',
    waiting: 'succeeded',
    fleet: 'succeeded',
  });
  expect(reports.waiting?.outputs.environment).toBe('PROD');
  expect([...((reports.fleet?.outputs.stopped as string[] | undefined) ?? [])].sort()).toEqual(
    [...scenario.fleetIds].sort(),
  );
}

/** For each run: the builds that served it (release / tree, in order) and its failed tasks. */
async function servedByBuilds(
  scenario: Scenario,
): Promise<Record<string, { builds: Build[]; failed: string[] }>> {
  const runs = runsOf(scenario);
  const entries = await Promise.all(
    Object.entries(runs).map(async ([name, handle]) => {
      const served = await servedBy(handle);
      const builds = served.buildIds.map((id): Build => (id === releaseBuildId ? 'release' : 'tree'));
      return [
        name,
        { builds: builds.filter((b, i) => builds[i - 1] !== b), failed: served.failedTasks },
      ] as const;
    }),
  );
  return Object.fromEntries(entries);
}

const everyRun = <T>(value: T) => ({ approval: value, held: value, waiting: value, fleet: value });

test('upgrade: runs left waiting on the earlier release are finished by the tree', async () => {
  const taskQueue = `upgrade-${randomBytes(3).toString('hex')}`;
  const old = await startWorker('release', taskQueue);
  const scenario = await leaveRunsWaiting('release', 'up', taskQueue, '10.1.0.0/16');
  await stopWorker(old);
  // The foreach was cut in the middle: not every stop was scheduled by the release.
  expect(await scheduledActivities(scenario.fleet, 'service.stop')).toBeLessThan(FLEET_SIZE);

  await startWorker('tree', taskQueue);
  expectFinished(scenario, await finishRuns(scenario));
  expect(await servedByBuilds(scenario)).toEqual(everyRun({ builds: ['release', 'tree'], failed: [] }));
}, 600_000);

test('rolling deploy: the tree joins the release on the queue, the runs go on, the release leaves', async () => {
  const taskQueue = `rolling-${randomBytes(3).toString('hex')}`;
  const old = await startWorker('release', taskQueue);
  const scenario = await leaveRunsWaiting('release', 'roll', taskQueue, '10.2.0.0/16');
  await startWorker('tree', taskQueue);
  // Side by side: the operators act while both poll; the release leaves while the foreach is going.
  await decide(scenario.approval, { approved: true, by: 'upgrade-test' });
  await scenario.held.executeUpdate(retryUpdate, { args: [{ step: 'pooler', by: 'upgrade-test' }] });
  await stopWorker(old);

  await stack.api.service.setEnvironment({
    project_id: stack.cloud.project.id,
    service_id: scenario.waitTargetId,
    environment: 'PROD',
  });
  expectFinished(scenario, await settleAll(scenario));
  const served = await servedByBuilds(scenario);
  for (const run of Object.values(served)) {
    expect(run.failed).toEqual([]);
    // Started by the release; whatever the tree took over is the tree's (never back).
    expect(run.builds[0]).toBe('release');
    expect(run.builds.slice(1).every((b) => b === 'tree')).toBe(true);
  }
  // The wait was still polling when the release left (it is woken only now): the tree finished it.
  expect(served.waiting?.builds).toEqual(['release', 'tree']);
}, 600_000);

// A rollback is not safe for the workflow code this time: the tree records a patch the release
// lacks (its release gate, 2027-09, which implies among others localCallAttempts — local calls
// report their attempts — and notifications — every top-level run asks the worker at its start
// which targets hear it, a local activity the release's code does not schedule), so the release
// cannot replay a run started on the tree. Such a run waits: its workflow tasks fail on the release (the failure is recorded,
// nothing runs twice, nothing is lost), and a worker of the tree, once back, finishes it.
test('rollback: runs started on the tree fail their tasks on the earlier release, lose nothing, and finish when the tree is back', async () => {
  const taskQueue = `rollback-${randomBytes(3).toString('hex')}`;
  const current = await startWorker('tree', taskQueue);
  const scenario = await leaveRunsWaiting('tree', 'back', taskQueue, '10.3.0.0/16', '20s');
  await stopWorker(current);
  expect(await scheduledActivities(scenario.fleet, 'service.stop')).toBeLessThan(FLEET_SIZE);

  // The fleet's next workflow task (its stops go on) lands on the release, which cannot replay it.
  const older = await startWorker('release', taskQueue);
  const onRelease = await pollUntil(
    'the fleet run to fail a workflow task on the release',
    () => servedBy(scenario.fleet),
    (served) => served.failedTasks.length > 0,
    STATE_TIMEOUT_MS,
  );
  expect(onRelease.failedTasks[0]).toMatch(/Nondeterminism error: .*patch marker .*tideline-2027-09-release/);
  await stopWorker(older);
  const known = Object.fromEntries(
    await Promise.all(
      Object.entries(runsOf(scenario)).map(async ([name, h]) => [
        name,
        (await servedBy(h)).failedTasks.length,
      ]),
    ),
  ) as KnownFailures;

  await startWorker('tree', taskQueue);
  expectFinished(scenario, await finishRuns(scenario, known));
  // The release never completed a task of these runs.
  const served = await servedByBuilds(scenario);
  for (const run of Object.values(served)) expect(run.builds).toEqual(['tree']);
  expect(served.fleet?.failed.length).toBeGreaterThan(0);
}, 600_000);

// A definition that uses what the release cannot read (a foreach's error budget, format 2) is
// refused by the release's worker, not run as if the budget were not there; the tree still writes
// format 1 for everything else, so the release runs those (the scenarios above).
test('a foreach with an error budget is refused by the release, which would misread it', async () => {
  const taskQueue = `format-${randomBytes(3).toString('hex')}`;
  await startWorker('release', taskQueue);
  const run = await start('tree', taskQueue, 'test/fixtures/budget/stop-budget.yaml', {
    project_id: stack.cloud.project.id,
    prefix: 'none-',
    failing: [],
  });
  const failure = await run.result().then(
    () => undefined,
    (error: unknown) => (error as { cause?: { type?: string; message?: string } }).cause,
  );
  expect({ type: failure?.type, message: failure?.message }).toEqual({
    type: 'RUNBOOK_FORMAT_UNSUPPORTED',
    message: expect.stringContaining('format version 2; this worker reads up to 1'),
  });
}, 120_000);
