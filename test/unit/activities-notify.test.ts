// The notification activities on their own: which targets hear which events of a run (the
// worker's targets by runbook pattern, a runbook's own subscriptions, unknown names), Slack text,
// and deliveries to a real local receiver — a refusal is final, a failing receiver is retried,
// and no error message quotes a target's URL. The worker configuration's `notifications:`.
import { ApplicationFailure } from '@temporalio/common';
import { createNotifyActivities, planNotifications } from '../../activities/notify';
import { slackMessage } from '../../activities/notify-slack';
import type { NotificationSettings } from '../../activities/deps';
import { Secret } from '../../cloud/redact';
import type { NotificationPayload } from '../../contract/notification-messages';
import { configSecrets, loadWorkerConfig } from '../../worker/config';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const settings = (targets: Record<string, { runbooks?: string[]; events?: ('held' | 'failed')[] }>) =>
  ({
    targets: new Map(
      Object.entries(targets).map(([name, t]) => [
        name,
        { type: 'webhook', url: new Secret('https://x'), ...t },
      ]),
    ),
    maxAttempts: 4,
    retryIntervalMs: 100,
  }) satisfies NotificationSettings;

describe('planNotifications', () => {
  const config = settings({
    all: {},
    provisioning: { runbooks: ['provision-*'], events: ['failed'] },
    named: { runbooks: [], events: ['held'] },
  });

  test('the worker’s targets hear the runbooks their patterns match; named-only targets only when named', () => {
    const plan = planNotifications(config, { runbook: 'provision-production-service', subscriptions: [] });
    expect(plan.targets).toEqual([
      { target: 'all', events: expect.arrayContaining(['started', 'succeeded']) },
      { target: 'provisioning', events: ['failed'] },
    ]);
    expect(
      planNotifications(config, { runbook: 'stop-dev', subscriptions: [] }).targets.map((t) => t.target),
    ).toEqual(['all']);
    expect(plan.retry).toEqual({ maximumAttempts: 4, initialIntervalMs: 100 });
  });

  test('a runbook’s subscriptions add events (in event order); unknown targets are listed once', () => {
    const plan = planNotifications(config, {
      runbook: 'provision-x',
      subscriptions: [
        { target: 'named', events: ['succeeded'] },
        { target: 'provisioning', events: ['started'] },
        { target: 'ghost' },
        { target: 'ghost', events: ['held'] },
      ],
    });
    expect(plan.targets).toContainEqual({ target: 'named', events: ['succeeded'] });
    expect(plan.targets).toContainEqual({ target: 'provisioning', events: ['started', 'failed'] });
    expect(plan.unknown).toEqual(['ghost']);
  });

  test('a `*` in a pattern matches any characters, `?` one, and nothing else is special', () => {
    const dotted = settings({ t: { runbooks: ['a.b*'] } });
    expect(planNotifications(dotted, { runbook: 'a.b-c', subscriptions: [] }).targets).toHaveLength(1);
    expect(planNotifications(dotted, { runbook: 'axb-c', subscriptions: [] }).targets).toHaveLength(0);
  });
});

const payload: NotificationPayload = {
  id: 'wf/run/2',
  event: 'awaiting-approval',
  runbook: 'promote',
  workflowId: 'wf',
  runId: 'run',
  namespace: 'default',
  at: '2026-11-25T00:00:00.000Z',
  step: 'sign_off',
  message: 'Promote orders?',
  commands: {
    approve: 'tideline approve wf --step sign_off',
    reject: 'tideline reject wf --step sign_off -m "why"',
  },
  webUiUrl: 'http://ui/namespaces/default/workflows/wf/run/history',
};

test('Slack text: the headline, the question, each command as code, the link', () => {
  expect(slackMessage(payload).text.split('\n')).toEqual([
    ':raised_hand: `promote` run `wf` waits for approval at step `sign_off`',
    '> Promote orders?',
    'approve: `tideline approve wf --step sign_off`',
    'reject: `tideline reject wf --step sign_off -m "why"`',
    '<http://ui/namespaces/default/workflows/wf/run/history|Open in the Web UI>',
  ]);
});

describe('notify.deliver to a real receiver', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver({ '/gone': 404, '/busy': 503 });
  });
  afterAll(() => receiver.close());

  const deliverTo = (path: string, type: 'webhook' | 'slack' = 'webhook') =>
    createNotifyActivities({
      targets: new Map([['t', { type, url: new Secret(receiver.url(path)) }]]),
      maxAttempts: 1,
      retryIntervalMs: 10,
    })['notify.deliver']({ target: 't', payload });

  test('a webhook gets the event as JSON, a Slack target its text', async () => {
    await deliverTo('/hook');
    await deliverTo('/slack', 'slack');
    expect(receiver.accepted('/hook')).toEqual([payload]);
    expect(receiver.accepted('/slack')).toEqual([slackMessage(payload)]);
  });

  test('a refusal is final, a failing receiver is worth retrying; neither error quotes the URL', async () => {
    const gone = await deliverTo('/gone').catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ApplicationFailure);
    expect(gone).toMatchObject({
      type: 'NOTIFY_DELIVERY_FAILED',
      nonRetryable: true,
      message: 'notification target t: HTTP 404',
    });
    await expect(deliverTo('/busy')).rejects.toMatchObject({
      nonRetryable: false,
      message: 'notification target t: HTTP 503',
    });
  });

  test('a receiver that is not there: the network error code, not the address', async () => {
    const closed = await startWebhookReceiver();
    const url = closed.url('/x');
    await closed.close();
    const activities = createNotifyActivities({
      targets: new Map([['t', { type: 'webhook', url: new Secret(url) }]]),
      maxAttempts: 1,
      retryIntervalMs: 10,
    });
    const error = await activities['notify.deliver']({ target: 't', payload }).catch(
      (e: unknown) => e as Error,
    );
    expect(error).toMatchObject({ message: 'notification target t: ECONNREFUSED', nonRetryable: false });
    expect(String((error as Error).message)).not.toContain(new URL(url).port);
  });

  test('a target the worker does not define is refused for good', async () => {
    await expect(
      createNotifyActivities()['notify.deliver']({ target: 'nobody', payload }),
    ).rejects.toMatchObject({ type: 'NOTIFY_TARGET_UNKNOWN', nonRetryable: true });
  });
});

describe('the worker configuration’s notifications:', () => {
  const load = (notifications: unknown) =>
    loadWorkerConfig({
      env: { TIDELINE_CONFIG: 'c.json' },
      readFile: () =>
        JSON.stringify({
          cloud: {
            baseUrl: 'https://api.example.com/v1',
            projects: { p1: { accessKey: 'a', secretKey: 's' } },
          },
          notifications,
        }),
    });

  test('targets with their URL kept as a secret: never printed, given to the scrubbers', () => {
    const config = load({
      webUiUrl: 'http://127.0.0.1:8233/',
      targets: { ops: { type: 'slack', url: 'https://hooks.example.com/T0/B0/XYZSECRET', events: ['held'] } },
    });
    expect(config.notifications.webUiUrl).toBe('http://127.0.0.1:8233');
    expect(config.notifications.maxAttempts).toBe(5);
    expect(JSON.stringify(config)).not.toContain('XYZSECRET');
    expect(JSON.stringify(config)).toContain('"notifications":{"targets":["ops"]}');
    expect(configSecrets(config)).toContain('https://hooks.example.com/T0/B0/XYZSECRET');
  });

  test('a bad target is an error naming the field, never quoting the URL', () => {
    expect(() => load({ targets: { ops: { type: 'teams', url: 'ftp://secret-host/x' } } })).toThrow(
      /notifications\.targets\.ops\.type[\s\S]*notifications\.targets\.ops\.url: must be an http\(s\) URL/,
    );
    expect(() => load({ targets: { ops: { type: 'webhook', url: 'ftp://secret-host/x' } } })).not.toThrow(
      /secret-host/,
    );
  });
});
