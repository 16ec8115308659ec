// Determinism guard: the committed histories of shipped-runbook runs (test/fixtures/histories)
// replay against the current workflow code. A change to the interpreter that would break runs
// already in flight (different commands in a different order) fails here.
//
// The histories are encrypted like real ones, with the TEST-ONLY key committed next to them.
// This gate never records: new histories come from `npm run record-histories`, which writes only
// missing files (test/helpers/history-recorder.ts); SHA256SUMS pins the ones committed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflows } from '../../worker/bundle';
import { runWorkflowBundle } from '../helpers/tree-workflows';
import { createDataConverter } from '../../worker/codec';
import {
  coverageGaps,
  fixtureKeyRing,
  historyFromObject,
  loadRecordedHistories,
  RECORDINGS,
} from '../helpers/history-recorder';

interface JsonEvent {
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
}

let workDir: string;
let bundlePath: string;

beforeAll(async () => {
  // The variable once re-recorded every history here; now it means someone expects that.
  if (process.env.TIDELINE_RECORD_HISTORIES)
    throw new Error(
      'TIDELINE_RECORD_HISTORIES is set: the replay gate never records (npm run record-histories)',
    );
  workDir = mkdtempSync(path.join(tmpdir(), 'tideline-replay-'));
  // The workflow code as it is in the tree now: this run's bundle, else bundled here (never a
  // possibly stale dist/ bundle from an earlier build).
  const built = runWorkflowBundle();
  if (built !== undefined) bundlePath = built;
  else {
    bundlePath = path.join(workDir, 'workflow-bundle.js');
    await bundleWorkflows({ outFile: bundlePath, workflowsPath: require.resolve('../../workflows') });
  }
}, 120_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

async function replay(histories: HistoryAndWorkflowId[]): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  const replaying = Worker.runReplayHistories(
    {
      workflowBundle: { codePath: bundlePath },
      dataConverter: createDataConverter(fixtureKeyRing()),
      replayName: 'tideline-replay',
    },
    histories,
  );
  for await (const result of replaying) results.push(result);
  return results;
}

test('every recording has a committed history that covers its path', () => {
  const histories = loadRecordedHistories();
  expect(histories.map((h) => h.name).sort()).toEqual(RECORDINGS.map((r) => r.name).sort());
  const gaps = RECORDINGS.flatMap((recording) =>
    coverageGaps(recording, histories.find((h) => h.name === recording.name)!.json),
  );
  expect(gaps).toEqual([]);
});

test('every committed history replays on the current workflow code', async () => {
  const histories = loadRecordedHistories();
  const results = await replay(histories);
  expect(results.map((r) => [r.workflowId, r.error ? `${r.error.name}: ${r.error.message}` : 'ok'])).toEqual(
    histories.map((h) => [h.workflowId, 'ok']),
  );
}, 300_000);

test('a history the code no longer matches is reported as nondeterministic', async () => {
  // Stands in for an incompatible interpreter change: the recorded run scheduled service.create
  // first; the same history now claims the first command was a service.delete.
  const [original] = loadRecordedHistories().filter((h) => h.name === 'provision-succeeded');
  const json = structuredClone(original!.json);
  const first = (json.events as JsonEvent[]).find((e) => e.activityTaskScheduledEventAttributes)!;
  expect(first.activityTaskScheduledEventAttributes!.activityType!.name).toBe('service.create');
  first.activityTaskScheduledEventAttributes!.activityType!.name = 'service.delete';

  const [result] = await replay([{ workflowId: 'replay-tampered', history: historyFromObject(json) }]);
  expect(result?.error).toBeInstanceOf(DeterminismViolationError);
}, 60_000);
