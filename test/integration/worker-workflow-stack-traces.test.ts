// The workflow sandbox's stack traces are WORKFLOW_STACK_TRACE_LIMIT frames deep
// (workflows/stack-trace-limit.ts, preloaded into the shared context): the SDK captures one for
// every promise a run creates, and its stack-trace query shows what a waiting run awaits. A run
// waiting for approval answers that query with traces of at most that many frames, the top one
// in the interpreter's code.
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { progressQuery } from '../../contract/run-messages';
import { WORKFLOW_STACK_TRACE_LIMIT } from '../../workflows/stack-trace-limit';
import { pollUntil } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

let stack: RunbookStack;

beforeAll(async () => {
  await buildDist();
  stack = await startRunbookStack();
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

test('a waiting run’s stack-trace query shows traces of at most the limit’s frames', async () => {
  expect(WORKFLOW_STACK_TRACE_LIMIT).toBeLessThan(10);
  const handle: WorkflowHandle = await stack.start(
    path.join(REPO_ROOT, 'test', 'fixtures', 'cli', 'gate.yaml'),
    {},
  );
  try {
    await pollUntil(
      'the run waiting for approval',
      () => handle.query(progressQuery),
      (progress) => progress.pendingApproval !== undefined,
      60_000,
    );
    const traces = (await handle.query<string>('__stack_trace'))
      .split(/\n\s*\n/)
      .map((trace) => trace.split('\n').filter((line) => /^\s+at /.test(line)))
      .filter((frames) => frames.length > 0);
    expect(traces.length).toBeGreaterThan(0);
    for (const frames of traces) expect(frames.length).toBeLessThanOrEqual(WORKFLOW_STACK_TRACE_LIMIT);
  } finally {
    await handle.cancel();
  }
}, 120_000);
