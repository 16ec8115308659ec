// Notifications through a real worker, the local cloud and a real HTTP receiver: the worker's
// `ops` webhook hears every event of every run, the runbook's own `chat` target (Slack-compatible)
// the events it names; a `flaky` target fails twice and then accepts, a `down` one never does.
// The awaiting-approval and held events carry commands that, typed as they are, answer the run
// (approve, retry, skip, rollback; a rollback also tells what was undone and that the run failed);
// no body holds a secret input's value or a target's URL; the failed deliveries are kept in the
// run's report with their reason, and the run still succeeds.
import path from 'node:path';
import { decodeOptionalSinglePayload, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { runCli } from '../../cli/main';
import { createDataConverter } from '../../worker/codec';
import type { NotificationPayload } from '../../contract/notification-messages';
import { reportInFailure, type RunReport, type RunbookWorkflowInput } from '../../contract/run-messages';
import { loadRunbookFile } from '../../dsl/loader';
import { Secret } from '../../cloud/redact';
import { capturedStreams } from '../helpers/captured-streams';
import { pollUntil, seedService } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { TEST_ENCRYPTION_KEYS, testKeyRing } from '../helpers/worker-process';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'notify', 'pooler-with-approval.yaml');
const SECRET_TOKEN = 'notify-secret-token-4711';

let receiver: WebhookReceiver;
let stack: RunbookStack;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ '/flaky': [503, 503], '/down': 500 });
  const target = (
    type: 'webhook' | 'slack',
    at: string,
    more: { runbooks?: string[]; events?: [] } = {},
  ) => ({
    type,
    url: new Secret(receiver.url(at)),
    ...more,
  });
  stack = await startRunbookStack(
    { timeScale: 0.05 },
    {
      keyRing: testKeyRing,
      notifications: {
        targets: new Map([
          ['ops', target('webhook', '/ops')],
          // Only for runbooks that name it.
          ['chat', target('slack', '/chat', { runbooks: [] })],
          ['flaky', target('webhook', '/flaky', { runbooks: ['pooler-*'] })],
          ['down', target('webhook', '/down', { runbooks: ['pooler-with-approval'] })],
        ]),
        webUiUrl: 'http://127.0.0.1:8233',
        maxAttempts: 3,
        retryIntervalMs: 50,
      },
    },
  );
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** Runs a command line exactly as a notification gives it (`tideline …`), against the stack. */
async function typed(command: string | undefined): Promise<{ code: number; out: string; err: string }> {
  expect(command).toMatch(/^tideline /);
  const words = [...command!.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)]
    .map((m) => m[1] ?? m[2] ?? m[3]!)
    .slice(1);
  const { stdout, stderr, out, err } = capturedStreams();
  const code = await runCli([...words, '--address', stack.server.address, '--task-queue', stack.taskQueue], {
    stdout,
    stderr,
    env: { HOME: '/nonexistent', TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, NO_COLOR: '1' },
    cwd: process.cwd(),
    interrupted: new Promise(() => undefined),
  });
  return { code, out: out(), err: err() };
}

/** The summaries of the timers the run started, decrypted, in order. */
async function timerSummaries(workflowId: string): Promise<unknown[]> {
  const events = (await stack.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const converter = loadDataConverter(createDataConverter(testKeyRing));
  return Promise.all(
    events
      .filter((event) => event.timerStartedEventAttributes)
      .map((event) => decodeOptionalSinglePayload(converter, event.userMetadata?.summary)),
  );
}

const opsEvent = (event: string) => () =>
  Promise.resolve(
    (receiver.accepted('/ops') as NotificationPayload[]).find((p) => p.event === event) ?? undefined,
  );

test('targets hear the run’s events with commands that answer it; failed deliveries are kept, the run still succeeds', async () => {
  const service = await seedService(stack, { name: 'notify-pooler' });
  const workflowId = `notify-${Date.now()}`;
  const input: RunbookWorkflowInput = {
    definition: loadRunbookFile(FIXTURE),
    inputs: { project_id: stack.projectId, service_id: service.service_id, ticket_token: SECRET_TOKEN },
  };
  stack.cloud.cloud.addFaults([{ action: 'service.enablePooler', kind: 'error', status: 503 }]);
  const handle = await stack.client.workflow.start('runbookWorkflow', {
    taskQueue: stack.taskQueue,
    workflowId,
    args: [input],
  });

  const asking = await pollUntil(
    'the awaiting-approval event',
    opsEvent('awaiting-approval'),
    Boolean,
    30_000,
  );
  expect(asking).toMatchObject({
    runbook: 'pooler-with-approval',
    workflowId,
    step: 'go',
    message: `Enable the pooler of ${service.service_id}?`,
    webUiUrl: `http://127.0.0.1:8233/namespaces/default/workflows/${workflowId}/${handle.firstExecutionRunId}/history`,
  });
  const approved = await typed(asking?.commands?.approve);
  expect(approved).toMatchObject({ code: 0 });

  const held = await pollUntil('the held event', opsEvent('held'), Boolean, 30_000);
  expect(held).toMatchObject({ step: 'pooler', errorType: 'CLOUD_API_SERVER_ERROR' });
  expect(Object.keys(held?.commands ?? {}).sort()).toEqual(['retry', 'rollback', 'skip']);
  stack.cloud.cloud.clearFaults();
  const retried = await typed(held?.commands?.retry);
  expect(retried).toMatchObject({ code: 0 });

  const report = (await handle.result()) as RunReport;
  expect(report.status).toBe('succeeded');

  // The worker's own target heard everything, in order, each event once.
  const ops = receiver.accepted('/ops') as NotificationPayload[];
  // (started and awaiting-approval leave in the same workflow task: they may arrive either way
  // round; the id's sequence number says in which order the run met them.)
  const sequence = Object.fromEntries(ops.map((p) => [p.event, Number(p.id.split('/').at(-1))]));
  expect(sequence).toEqual({ started: 1, 'awaiting-approval': 2, held: 3, succeeded: 4 });
  expect(ops).toHaveLength(4);
  // The runbook's own Slack target: the events it named, as Slack text with the commands in it.
  const chat = receiver.accepted('/chat') as { text: string }[];
  expect(chat).toHaveLength(3);
  expect(chat[0]?.text).toContain('waits for approval at step `go`');
  expect(chat[0]?.text).toContain(`\`tideline approve ${workflowId} --step go\``);
  expect(chat[1]?.text).toContain(`\`tideline retry ${workflowId} --step pooler\``);
  expect(chat[2]?.text).toContain('succeeded');
  // The flaky target was answered 503 twice, then took the first event; later ones at once.
  const flaky = receiver.posts.filter((p) => p.path === '/flaky');
  expect(flaky.slice(0, 3).map((p) => p.status)).toEqual([503, 503, 200]);
  expect(receiver.accepted('/flaky')).toHaveLength(4);
  // The target that is down: three tries per event, each failure kept with its reason.
  expect(receiver.posts.filter((p) => p.path === '/down')).toHaveLength(12);
  expect(report.notifications?.delivered).toBe(4 + 3 + 4);
  // Deliveries run side by side: their failures come back in whatever order their retries end.
  const failed = [...(report.notifications?.failed ?? [])].sort((a, b) => a.event.localeCompare(b.event));
  expect(failed).toEqual(
    ['awaiting-approval', 'held', 'started', 'succeeded'].map((event) => ({
      event,
      target: 'down',
      error: 'notification target down: HTTP 500',
    })),
  );
  // The Web UI names the approval's and the hold's timers after their step and what they wait for.
  expect(await timerSummaries(workflowId)).toEqual([
    'approval go: reject without an answer',
    'held pooler: rolls back without an operator',
  ]);
  // The run replays on the tree's code: its notifications are as deterministic as its steps.
  expect(await stack.replayError(workflowId)).toBeUndefined();
  // Nothing secret left the run: no input value marked secret, no target URL.
  for (const post of receiver.posts) {
    expect(post.raw).not.toContain(SECRET_TOKEN);
    expect(post.raw).not.toContain('127.0.0.1:' + new URL(receiver.url('/')).port);
  }
}, 120_000);

const HOLDING = path.resolve(__dirname, '..', 'fixtures', 'notify', 'tag-then-pooler.yaml');

/** The worker's `ops` events of one run, by event name, once `last` has arrived. */
async function opsEventsOf(workflowId: string, last: string): Promise<Map<string, NotificationPayload>> {
  const events = () =>
    (receiver.accepted('/ops') as NotificationPayload[]).filter((p) => p.workflowId === workflowId);
  await pollUntil(
    `the ${last} event of ${workflowId}`,
    () => Promise.resolve(events()),
    (list) => list.some((p) => p.event === last),
    30_000,
  );
  return new Map(events().map((p) => [p.event, p]));
}

test("the held event's skip and rollback commands answer the run as typed; a rollback notifies compensated and failed", async () => {
  stack.cloud.cloud.addFaults([{ action: 'service.enablePooler', kind: 'error', status: 503 }]);
  try {
    const outcomes: Record<string, RunReport> = {};
    for (const verb of ['skip', 'rollback'] as const) {
      const service = await seedService(stack, { name: `notify-${verb}` });
      const handle = await stack.client.workflow.start('runbookWorkflow', {
        taskQueue: stack.taskQueue,
        workflowId: `notify-${verb}-${Date.now()}`,
        args: [
          {
            definition: loadRunbookFile(HOLDING),
            inputs: { project_id: stack.projectId, service_id: service.service_id },
          } satisfies RunbookWorkflowInput,
        ],
      });
      const held = (await opsEventsOf(handle.workflowId, 'held')).get('held');
      expect(held).toMatchObject({ step: 'pooler' });
      expect(await typed(held?.commands?.[verb])).toMatchObject({ code: 0 });
      outcomes[verb] = (await handle.result().catch((error: unknown) => reportInFailure(error))) as RunReport;
      const events = await opsEventsOf(handle.workflowId, verb === 'skip' ? 'succeeded' : 'failed');
      if (verb === 'skip') {
        expect([...events.keys()].sort()).toEqual(['held', 'started', 'succeeded']);
        continue;
      }
      expect([...events.keys()].sort()).toEqual(['compensated', 'failed', 'held', 'started']);
      expect(events.get('compensated')).toMatchObject({ message: '1 step(s) undone' });
      expect(events.get('failed')).toMatchObject({
        step: 'pooler',
        errorType: 'CLOUD_API_SERVER_ERROR',
        webUiUrl: expect.stringContaining(`/workflows/${handle.workflowId}/`),
      });
    }
    expect(outcomes.skip?.status).toBe('succeeded');
    expect(outcomes.rollback?.status).toBe('failed');
    expect(outcomes.rollback?.steps.find((s) => s.id === 'tag')?.status).toBe('compensated');
  } finally {
    stack.cloud.cloud.clearFaults();
  }
}, 120_000);

test('a target the runbook names that the worker does not define is a failed delivery, not a failed run', async () => {
  const definition = { ...loadRunbookFile(FIXTURE), name: 'unnamed-target', notify: [{ target: 'nobody' }] };
  definition.steps = definition.steps.filter((step) => step.id === 'go');
  const handle = await stack.client.workflow.start('runbookWorkflow', {
    taskQueue: stack.taskQueue,
    workflowId: `notify-unknown-${Date.now()}`,
    args: [{ definition, inputs: { project_id: stack.projectId, service_id: 'x', ticket_token: 't' } }],
  });
  const asking = await pollUntil(
    'the awaiting-approval event',
    () =>
      Promise.resolve(
        (receiver.accepted('/ops') as NotificationPayload[]).find(
          (p) => p.workflowId === handle.workflowId && p.event === 'awaiting-approval',
        ),
      ),
    Boolean,
    30_000,
  );
  expect(await typed(asking?.commands?.approve)).toMatchObject({ code: 0 });
  const report = (await handle.result()) as RunReport;
  expect(report.status).toBe('succeeded');
  expect(report.notifications?.failed).toEqual([
    { event: 'started', target: 'nobody', error: "not in the worker configuration's notifications.targets" },
  ]);
  // The worker named the targets with its admission: one local activity (run.admit) before the
  // run's first activity (the `started` delivery), no notify.plan beside it.
  const events = (await handle.fetchHistory()).events ?? [];
  const firstActivity = events.findIndex((event) => event.activityTaskScheduledEventAttributes);
  const localActivities = events
    .slice(0, firstActivity)
    .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(firstActivity).toBeGreaterThan(0);
  expect(localActivities).toHaveLength(1);
}, 60_000);
