// Runs that outlive a release. A fork-and-promote started by this release's interpreter waits for
// its approval; the worker is replaced by the next release, whose interpreter emits a new command
// before every call step (a stand-in for any change in the order of a run's commands). Guarded by
// patched() as contract/patches.ts prescribes, the next release finishes the run; the same change
// unguarded cannot replay it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { createDataConverter } from '../../worker/codec';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import { loadRunbookFile } from '../../dsl/loader';
import type { RunReport, RunbookWorkflowInput } from '../../contract/run-messages';
import { NEXT_RELEASE_PATCH } from '../fixtures/upgrade/next-release-step-kinds';
import { bundleNextRelease } from '../helpers/release-bundles';
import { createVpc, decide, getService, seedService, waitForApproval } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const keyRing = new EncryptionKeyRing([{ id: 'upgrade', key: randomBytes(32) }]);
let stack: RunbookStack;
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'tideline-upgrade-'));
  stack = await startRunbookStack({ timeScale: 0.05 }, { keyRing });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** The patch ids a history recorded (patched() records a `core_patch` marker when it takes one). */
function patchMarkers(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const data = event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
  });
}

test('a run waiting for approval on release N is finished by release N+1; the unguarded change cannot replay it', async () => {
  const vpcId = await createVpc(stack);
  const parent = await seedService(stack, { name: 'orders', environment: 'PROD', vpcId });
  const handle = await stack.start('fork-and-promote.yaml', {
    project_id: stack.projectId,
    service_id: parent.service_id,
    require_approval: true,
  });
  await waitForApproval(handle, 60_000);
  const waitingHistory = await handle.fetchHistory();

  const [guarded, unguarded] = await Promise.all([
    bundleNextRelease('guarded', path.join(workDir, 'next-release.js')),
    bundleNextRelease('unguarded', path.join(workDir, 'next-release-unguarded.js')),
  ]);
  await stack.replaceWorker({ workflowBundle: { codePath: guarded } });

  await decide(handle, { approved: true, by: 'upgrade-test' });
  const report = (await handle.result()) as RunReport;
  expect(report.status).toBe('succeeded');
  expect((await getService(stack, parent.service_id!)).metadata?.environment).toBe('DEV');

  const events = (await handle.fetchHistory()).events ?? [];
  // The calls after the approval ran the new branch (and recorded it); nothing failed on the way.
  expect(patchMarkers(events)).toContain(NEXT_RELEASE_PATCH);
  expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);

  const replay = (codePath: string) =>
    Worker.runReplayHistory(
      { workflowBundle: { codePath }, dataConverter: createDataConverter(keyRing), replayName: 'upgrade' },
      waitingHistory,
      handle.workflowId,
    );
  await expect(replay(guarded)).resolves.toBeUndefined();
  await expect(replay(unguarded)).rejects.toBeInstanceOf(DeterminismViolationError);
}, 240_000);

describe('definition format', () => {
  const start = (formatVersion: number | undefined) => {
    const { formatVersion: _current, ...definition } = loadRunbookFile(
      path.join(__dirname, '..', 'fixtures', 'upgrade', 'short-nap.yaml'),
    );
    const input: RunbookWorkflowInput = {
      definition: formatVersion === undefined ? definition : { ...definition, formatVersion },
      inputs: { word: 'kept' },
    };
    return stack.client.workflow.execute('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `format-${formatVersion ?? 'none'}-${randomBytes(3).toString('hex')}`,
      args: [input],
    });
  };

  test('a definition stored before format versions (an old schedule) still runs', async () => {
    await expect(start(undefined)).resolves.toMatchObject({ status: 'succeeded', outputs: { word: 'kept' } });
  }, 60_000);

  test('a definition from a newer format is refused with a clear failure', async () => {
    await expect(start(99)).rejects.toMatchObject({
      cause: {
        type: 'RUNBOOK_FORMAT_UNSUPPORTED',
        message: expect.stringMatching(/format version 99.*upgrade the workers/),
      },
    });
  }, 60_000);

  test('a definition format no release wrote is refused too', async () => {
    await expect(start(0)).rejects.toMatchObject({
      cause: {
        type: 'RUNBOOK_FORMAT_UNSUPPORTED',
        message: expect.stringMatching(/format version 0, which no release/),
      },
    });
  }, 60_000);
});
