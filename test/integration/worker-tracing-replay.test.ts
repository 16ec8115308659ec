// The traced workflow bundle (the workflows plus the tracing interceptors, worker/tracing.ts) emits
// the same commands as the plain one: every committed history, recorded by untraced workers,
// replays on it. A worker that turns tracing on (or off) takes over runs in flight.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { bundleWorkflows } from '../../worker/bundle';
import { createDataConverter } from '../../worker/codec';
import { fixtureKeyRing, loadRecordedHistories } from '../helpers/history-recorder';

let workDir: string;
let bundlePath: string;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'tideline-traced-replay-'));
  bundlePath = path.join(workDir, 'workflow-bundle-traced.js');
  await bundleWorkflows({
    outFile: bundlePath,
    workflowsPath: require.resolve('../../workflows'),
    traced: true,
  });
}, 120_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

test('the traced bundle holds the tracing interceptors', () => {
  const code = readFileSync(bundlePath, 'utf8');
  expect(code).toContain('tracing-interceptors');
  expect(code).toContain('OpenTelemetryInboundInterceptor');
});

test('every committed history replays on the traced bundle', async () => {
  const histories = loadRecordedHistories();
  const results: ReplayResult[] = [];
  const replaying = Worker.runReplayHistories(
    {
      workflowBundle: { codePath: bundlePath },
      dataConverter: createDataConverter(fixtureKeyRing()),
      replayName: 'tideline-traced-replay',
      // Replay never calls sinks; the interceptors still need it to exist.
      sinks: { exporter: { export: { fn: () => undefined } } },
    },
    histories,
  );
  for await (const result of replaying) results.push(result);
  expect(results.map((r) => [r.workflowId, r.error ? `${r.error.name}: ${r.error.message}` : 'ok'])).toEqual(
    histories.map((h) => [h.workflowId, 'ok']),
  );
}, 300_000);
