// Tracing end to end: a worker process with OTEL_EXPORTER_OTLP_ENDPOINT set runs rotate-password
// (a secret input) against the local cloud, and an in-process OTLP receiver gets one trace for
// the run — the run's span, a span per step under it, the activities under their steps and a span
// per Cloud API request under its activity, each with its runbook, step and operation — and not a
// byte of the new password or of the project's secret key. A run started by the CLI with
// TRACEPARENT in its environment (a traced CI pipeline) continues that trace.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadRunbookFile } from '../../dsl/loader';
import type { RunReport, RunbookWorkflowInput } from '../../contract/run-messages';
import type { GuardedProcess } from '../helpers/guarded-process';
import { runTideline } from '../helpers/cli-process';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { startProcessWorkerStack, type ProcessWorkerStack } from '../helpers/process-worker-stack';
import { pollUntil } from '../helpers/runbook-fixtures';
import { startWorkerProcess } from '../helpers/worker-process';

const taskQueue = `tracing-${randomBytes(4).toString('hex')}`;
const RUNBOOK = path.resolve(__dirname, '..', '..', 'runbooks', 'rotate-password.yaml');
/** The secret input: it must not reach the receiver in any form. */
const PASSWORD = `Tr4ce-${randomBytes(9).toString('hex')}`;

let stack: ProcessWorkerStack;
let receiver: OtlpReceiver;
let worker: GuardedProcess | undefined;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([
    startProcessWorkerStack({ taskQueue, cloud: { timeScale: 0.02 } }),
    startOtlpReceiver(),
  ]);
}, 240_000);

afterAll(async () => {
  await worker?.kill();
  await stack?.close();
  await receiver?.close();
});

function named(spans: ReceivedSpan[], name: string): ReceivedSpan[] {
  return spans.filter((span) => span.name === name);
}

/** The span and its ancestors, nearest first, as far as the received spans reach. */
function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain = [span];
  for (let parent = span.parentSpanId; parent !== undefined;) {
    const next = byId.get(parent);
    if (next === undefined) break;
    chain.push(next);
    parent = next.parentSpanId;
  }
  return chain;
}

test('a run is one trace of steps and Cloud API calls, without secrets', async () => {
  const { cloud: tc, client, api } = stack;
  const project_id = tc.project.id;
  const created = await api.service.create({
    project_id,
    name: 'traced',
    cpu_millis: '1000',
    memory_gbs: '4',
  });
  const service_id = created.service_id!;
  await pollUntil(
    'the service to be READY',
    () => api.service.get({ project_id, service_id }),
    (service) => service.status === 'READY',
    60_000,
  );

  worker = await startWorkerProcess({
    env: { ...stack.workerEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
  });
  expect(worker.output()).toContain(`tracing: spans to ${receiver.endpoint}/v1/traces`);

  const workflowId = `tracing-${randomBytes(4).toString('hex')}`;
  const input: RunbookWorkflowInput = {
    definition: loadRunbookFile(RUNBOOK),
    inputs: { project_id, service_id, new_password: PASSWORD },
  };
  const handle = await client.workflow.start('runbookWorkflow', { taskQueue, workflowId, args: [input] });
  const report = (await handle.result()) as RunReport;
  expect(report.status).toBe('succeeded');

  // A graceful stop flushes what the worker still buffers; the receiver is then read until the
  // run's own span (the last to end) is there.
  const stopping = worker;
  worker = undefined;
  const exit = await stopping.stop();
  expect({ ...exit, output: exit.code === 0 ? '' : stopping.output() }).toMatchObject({
    code: 0,
    output: '',
  });
  const spans = await pollUntil(
    "the run's span at the receiver",
    () => Promise.resolve(receiver.spans()),
    (received) => received.some((span) => span.name === 'RunWorkflow:runbookWorkflow'),
    30_000,
  );
  expect(receiver.strayRequests()).toEqual([]);

  // One trace, rooted at the run's span: the run's workflow spans, its steps, its activities and
  // their calls. (The service's lock workflow, shared by the runs on that service, has its own.)
  const [run, ...otherRuns] = named(spans, 'RunWorkflow:runbookWorkflow');
  expect(otherRuns).toEqual([]);
  expect(run!.parentSpanId).toBeUndefined();
  expect(run!.attributes).toMatchObject({ 'tideline.runbook': 'rotate-password', workflowId });
  expect(run!.resource).toMatchObject({ 'service.name': 'tideline-worker' });
  const ofRun = spans.filter(
    (span) =>
      span.attributes.workflowId === workflowId ||
      span.attributes.temporalWorkflowId === workflowId ||
      span.attributes['tideline.runbook'] !== undefined,
  );
  expect(ofRun.length).toBeGreaterThan(10);
  const outside = ofRun.filter(
    (span) => span.traceId !== run!.traceId && !span.name.startsWith('HandleSignal:'),
  );
  expect(outside.map((span) => span.name)).toEqual([]);

  // A span per step, under the run's span, with what the step was and how it ended.
  const steps = spans.filter((span) => span.name.startsWith('Step:'));
  expect(steps.map((span) => span.name).sort()).toEqual(
    ['Step:check_ready', 'Step:ready', 'Step:rotate', 'Step:service'].sort(),
  );
  for (const step of steps) expect(step.parentSpanId).toBe(run!.spanId);
  expect(named(spans, 'Step:rotate')[0]!.attributes).toMatchObject({
    'tideline.runbook': 'rotate-password',
    'tideline.step': 'rotate',
    'tideline.step.id': 'rotate',
    'tideline.step.kind': 'call',
    'tideline.operation': 'service.updatePassword',
    'tideline.step.status': 'done',
  });
  expect(named(spans, 'Step:check_ready')[0]!.attributes).toMatchObject({
    'tideline.step.kind': 'assert',
    'tideline.step.status': 'done',
  });

  // A span per Cloud API request, under its activity, under its step, under the run.
  const [rotateCall, ...moreRotateCalls] = named(spans, 'CloudApi:service.updatePassword');
  expect(moreRotateCalls).toEqual([]);
  expect(rotateCall!.attributes).toEqual({
    'tideline.operation': 'service.updatePassword',
    'tideline.runbook': 'rotate-password',
    'tideline.step': 'rotate',
    'tideline.attempt': 1,
    'http.request.method': 'POST',
    'http.response.status_code': expect.any(Number),
    'url.template': expect.stringContaining('{service_id}'),
  });
  expect(rotateCall!.attributes['http.response.status_code']).toBeLessThan(300);
  expect(ancestry(spans, rotateCall!).map((span) => span.name)).toEqual([
    'CloudApi:service.updatePassword',
    'RunActivity:service.updatePassword',
    'StartActivity:service.updatePassword',
    'Step:rotate',
    'RunWorkflow:runbookWorkflow',
  ]);
  const reads = named(spans, 'CloudApi:service.get');
  expect(new Set(reads.map((span) => span.attributes['tideline.step']))).toEqual(
    new Set(['service', 'ready']),
  );
  for (const read of reads) {
    expect(read.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
    const chain = ancestry(spans, read).map((span) => span.name);
    expect(chain.at(-1)).toBe('RunWorkflow:runbookWorkflow');
    expect(chain).toContain(`Step:${String(read.attributes['tideline.step'])}`);
  }

  // No secret, in any form the exporter could have written it.
  const bytes = Buffer.concat(receiver.bodies()).toString('utf8');
  const secretKey = tc.project.secret_key;
  const forbidden = [
    PASSWORD,
    JSON.stringify(PASSWORD).slice(1, -1),
    Buffer.from(PASSWORD).toString('base64'),
    secretKey,
    Buffer.from(`${tc.project.access_key}:${secretKey}`).toString('base64'),
  ];
  for (const secret of forbidden) expect(bytes.includes(secret)).toBe(false);
  // Only plain values: the workflow info's memo and search attributes (objects) stay behind.
  expect(bytes).not.toContain('kvlistValue');
  expect(bytes).not.toContain('"memo"');
}, 180_000);

test('a run started by the CLI under TRACEPARENT continues that trace: its span is a child of the given span', async () => {
  worker = await startWorkerProcess({
    env: { ...stack.workerEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
  });
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');
  const workflowId = `traced-cli-${randomBytes(4).toString('hex')}`;
  const result = await runTideline(
    [
      'run',
      'test/fixtures/cli/quick.yaml',
      '--id',
      workflowId,
      '--address',
      stack.server.address,
      '--task-queue',
      taskQueue,
    ],
    { env: { TRACEPARENT: `00-${traceId}-${parentSpanId}-01`, TIDELINE_INPUT_TOKEN: 'not-traced' } },
  );
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });

  const stopping = worker;
  worker = undefined;
  await stopping.stop();
  const runSpan = (received: ReceivedSpan[]) =>
    received.find(
      (span) => span.name === 'RunWorkflow:runbookWorkflow' && span.attributes.workflowId === workflowId,
    );
  const spans = await pollUntil(
    "the CLI run's span at the receiver",
    () => Promise.resolve(receiver.spans()),
    (received) => runSpan(received) !== undefined,
    30_000,
  );
  expect(runSpan(spans)).toMatchObject({ traceId, parentSpanId });
  // Its steps are in the same trace, under it.
  const steps = spans.filter((span) => span.name.startsWith('Step:') && span.traceId === traceId);
  expect(steps.map((span) => span.name).sort()).toEqual(['Step:first', 'Step:second']);
}, 120_000);
