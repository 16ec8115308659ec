// `tideline upgrade status` on a dev server, with runs left open on the worker process of the
// earlier release (releases/releases.json): one with steps side by side (it records the release
// gate and the patch asked after it), one without (the gate only, so it may still need that
// patch's old branch). The command groups them by release, names the patches they may need, and
// `--patch` gives the evidence to retire one: exit 1 while a run may need it, 0 once none does.
// (Both also predate the current tree's own patches, which they therefore may need too.)
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import type { UpgradeStatus } from '../../cli/commands/upgrade';
import { PATCHES } from '../../contract/patches';
import { HELD_LOCK_WORKFLOW_TYPE } from '../../contract/workflow-types';
import { jsonOutput, runTideline } from '../helpers/cli-process';
import type { GuardedProcess } from '../helpers/guarded-process';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { loadReleaseRunbook, previousRelease, startReleaseWorker } from '../helpers/release-workers';
import { decide, pollUntil, waitForApproval } from '../helpers/runbook-fixtures';

const taskQueue = `upgrade-status-${randomBytes(3).toString('hex')}`;
let stack: ProcessWorkerStack;
let worker: GuardedProcess | undefined;
let lone: WorkflowHandle;
let beside: WorkflowHandle;

const tideline = (...args: string[]) =>
  runTideline(['upgrade', 'status', ...args], { env: { TEMPORAL_ADDRESS: stack.server.address } });

beforeAll(async () => {
  const [release, started] = await Promise.all([
    previousRelease(),
    startProcessWorkerStack({ taskQueue, cloud: {} }),
  ]);
  stack = started;
  worker = await startReleaseWorker(release, stack.workerEnv());
  const start = (file: string) => {
    const definition = loadReleaseRunbook(release, file);
    const input: RunbookWorkflowInput = { definition, inputs: {} };
    return stack.client.workflow.start('runbookWorkflow', {
      taskQueue,
      workflowId: `${definition.name}-${randomBytes(3).toString('hex')}`,
      args: [input],
    });
  };
  [lone, beside] = await Promise.all([
    start('test/fixtures/kinds/approval-open.yaml'),
    start('test/fixtures/upgrade/approval-beside-nap.yaml'),
  ]);
  await Promise.all([waitForApproval(lone, 60_000), waitForApproval(beside, 60_000)]);
}, 300_000);

afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

test('lists the open runs by release with the patches they may still need', async () => {
  // Visibility is eventually consistent: wait until both runs show the ids they recorded.
  const status = await pollUntil(
    'both runs in visibility with their patch markers',
    async () => jsonOutput<UpgradeStatus>(await tideline('--json')),
    (s) => s.openRuns === 2 && s.releases.every((g) => g.runs.every((r) => r.recorded.length > 0)),
    60_000,
  );
  expect(status.releases.map((g) => [g.startedOn, g.gate, g.runs.length])).toEqual([
    ['2027-01 or later', PATCHES.release2027_01, 2],
  ]);
  const runs = Object.fromEntries(status.releases[0]!.runs.map((r) => [r.workflowId, r]));
  // Neither run (of the earlier release) recorded the patches of later ones.
  expect(runs[lone.workflowId]).toMatchObject({
    recorded: [PATCHES.release2027_01],
    needs: [
      PATCHES.concurrentCallsAsTasks,
      PATCHES.notifications,
      PATCHES.localCallAttempts,
      PATCHES.runAdmission,
      PATCHES.siblingCancelSettles,
      PATCHES.admissionPlansNotifications,
      PATCHES.driftAutoRepair,
      PATCHES.locksStartHeld,
      PATCHES.holdActionsJudged,
      PATCHES.resetAsksAgain,
    ],
  });
  expect(runs[beside.workflowId]).toMatchObject({
    recorded: [PATCHES.release2027_01, PATCHES.concurrentCallsAsTasks],
    needs: [
      PATCHES.notifications,
      PATCHES.localCallAttempts,
      PATCHES.runAdmission,
      PATCHES.siblingCancelSettles,
      PATCHES.admissionPlansNotifications,
      PATCHES.driftAutoRepair,
      PATCHES.locksStartHeld,
      PATCHES.holdActionsJudged,
      PATCHES.resetAsksAgain,
    ],
  });
  const needed = status.patches.filter((p) => p.neededBy.length > 0);
  expect(needed).toEqual([
    { id: PATCHES.concurrentCallsAsTasks, release: '2027-02', neededBy: [lone.workflowId] },
    {
      id: PATCHES.notifications,
      release: '2027-03',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
    {
      id: PATCHES.localCallAttempts,
      release: '2027-04',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
    {
      id: PATCHES.runAdmission,
      release: '2027-05',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
    {
      id: PATCHES.siblingCancelSettles,
      release: '2027-06',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
    {
      id: PATCHES.admissionPlansNotifications,
      release: '2027-09',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
    {
      id: PATCHES.driftAutoRepair,
      release: '2027-10',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
    {
      id: PATCHES.locksStartHeld,
      release: '2027-11',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
    {
      id: PATCHES.holdActionsJudged,
      release: '2027-12',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
    {
      id: PATCHES.resetAsksAgain,
      release: '2027-12',
      neededBy: expect.arrayContaining([lone.workflowId, beside.workflowId]),
    },
  ]);

  const text = await tideline();
  expect(text.code).toBe(0);
  expect(text.stdout).toContain('started on 2027-01 or later (recorded tideline-2027-01-release): 2 runs');
  expect(text.stdout).toMatch(/patches no open run needs \(can be retired\):\n {2}tideline-2026-11-/);
}, 120_000);

test('--patch is the evidence to retire a patch: exit 1 while an open run may need it, 0 once none does', async () => {
  const still = await tideline('--patch', PATCHES.concurrentCallsAsTasks);
  expect(still.code).toBe(1);
  expect(still.stderr).toContain(
    `may still take the old branch of ${PATCHES.concurrentCallsAsTasks}: ${lone.workflowId}`,
  );
  const stillJson = await tideline('--patch', PATCHES.concurrentCallsAsTasks, '--json');
  expect({ code: stillJson.code, error: jsonOutput(stillJson) }).toMatchObject({
    code: 1,
    error: { error: { code: 'PATCH_STILL_NEEDED' } },
  });

  const free = await tideline('--patch', PATCHES.parallelFailFast);
  expect({ code: free.code, stdout: free.stdout }).toEqual({
    code: 0,
    stdout: `no open run needs ${PATCHES.parallelFailFast} (2 open runs read): it can be retired\n`,
  });

  const unknown = await tideline('--patch', 'tideline-2026-11-parallel-fail-fats');
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain(`did you mean ${PATCHES.parallelFailFast}?`);

  // The run that may need it ends (approved; it then fails on purpose): nothing needs it any more.
  await decide(lone, { approved: true, by: 'upgrade-status-test' });
  await expect(lone.result()).rejects.toThrow();
  const retired = await pollUntil(
    'the closed run to leave the open runs',
    () => tideline('--patch', PATCHES.concurrentCallsAsTasks),
    (result) => result.code === 0,
    60_000,
  );
  expect(retired.stdout).toContain(`no open run needs ${PATCHES.concurrentCallsAsTasks} (1 open run read)`);
  await decide(beside, { approved: true, by: 'upgrade-status-test' });
  await beside.result();
}, 120_000);

test('an open service lock of a type that asks for no patch needs none', async () => {
  // Started raw, as `lock.take` starts one, on a queue no worker polls: it stays open.
  const key = `service/upgrade-status/${randomBytes(3).toString('hex')}`;
  const lock = await stack.client.workflow.start(HELD_LOCK_WORKFLOW_TYPE, {
    taskQueue: `${taskQueue}-locks`,
    workflowId: `tideline-lock/${key}`,
    args: [key, ['a-holder'], 'a-holder'],
  });
  try {
    const status = await pollUntil(
      'the lock in visibility',
      async () => jsonOutput(await tideline('--json')) as UpgradeStatus,
      (s) => s.releases.some((g) => g.runs.some((r) => r.workflowId === lock.workflowId)),
      60_000,
    );
    const group = status.releases.find((g) => g.runs.some((r) => r.workflowId === lock.workflowId))!;
    expect(group).toMatchObject({ startedOn: 'any release (its type asks for no patch)', gate: null });
    expect(group.runs.find((r) => r.workflowId === lock.workflowId)).toMatchObject({
      workflowType: HELD_LOCK_WORKFLOW_TYPE,
      needs: [],
    });
    // So it holds back no patch: one every earlier run may need is free while only the lock is open.
    expect(status.patches.every((p) => !p.neededBy.includes(lock.workflowId))).toBe(true);
  } finally {
    await lock.terminate('test over');
  }
}, 120_000);
