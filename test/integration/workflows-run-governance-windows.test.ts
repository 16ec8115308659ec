// A fleet change and its change window, deterministically: the worker's clock (injected) says the
// window is open for the first three items of a foreach over ten services and closed at the
// fourth, until a freeze ends. The run promotes three, waits on a named timer while the window is
// closed, and promotes the other seven only after it reopens.
import path from 'node:path';
import type { Clock } from '../../activities/deps';
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import { loadRunbookFile } from '../../dsl/loader';
import { compile } from '../helpers/policy-fixtures';
import { reportOf, seedService } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { testKeyRing } from '../helpers/worker-process';
import { Secret } from '../../cloud/redact';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const FLEET = path.resolve(__dirname, '..', 'fixtures', 'governance', 'promote-fleet.yaml');
const FREEZE_FROM = Date.parse('2030-12-20T00:00:00Z');
const FREEZE_MS = 1_500;

/**
 * The worker's time: before the freeze for the run's admission and its first three policy checks,
 * inside the freeze for the fourth, after it from then on. Items run one after the other, so the
 * order of the checks is the order of the items.
 */
function freezeAtTheFourthItem(): Clock & { calls: number } {
  return {
    calls: 0,
    now() {
      this.calls += 1;
      if (this.calls <= 1 + 3) return FREEZE_FROM - 86_400_000;
      if (this.calls === 5) return FREEZE_FROM + 100;
      return FREEZE_FROM + 86_400_000;
    },
  };
}

describe('a change window closing in the middle of a fleet change', () => {
  let stack: RunbookStack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const governance = compile({
      calendars: {
        freeze: {
          kind: 'freeze',
          timezone: 'UTC',
          from: new Date(FREEZE_FROM).toISOString(),
          until: new Date(FREEZE_FROM + FREEZE_MS).toISOString(),
        },
      },
      policies: [
        {
          name: 'no-promotions-in-freeze',
          when: "step.action == 'service.setEnvironment'",
          effect: 'window',
          calendar: 'freeze',
          outside: 'wait',
        },
      ],
    });
    stack = await startRunbookStack(
      { timeScale: 0.05 },
      {
        keyRing: testKeyRing,
        governance: governance,
        policyClock: freezeAtTheFourthItem(),
        notifications: {
          targets: new Map([['ops', { type: 'webhook' as const, url: new Secret(receiver.url('/ops')) }]]),
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

  test('three items go, the rest wait on a named timer until the window reopens', async () => {
    const services = [];
    for (let i = 0; i < 10; i += 1) services.push(await seedService(stack, { name: `fleet-${i}` }));
    const ids = services.map((s) => s.service_id ?? '');
    const handle = await stack.client.workflow.start('runbookWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `fleet-window-${Date.now()}`,
      args: [
        {
          definition: loadRunbookFile(FLEET),
          inputs: { project_id: stack.projectId, service_ids: ids },
        } satisfies RunbookWorkflowInput,
      ],
    });
    const report = await reportOf(handle);
    expect(report.status).toBe('succeeded');
    // The fourth item's check found the window closed, and only it.
    const closed = (report.policies ?? []).filter((record) => record.open === false);
    expect(closed.map((record) => [record.rule, record.stepKey, record.calendar])).toEqual([
      ['no-promotions-in-freeze', 'each[3].promote', 'freeze'],
    ]);
    expect(closed[0]?.opensAt).toBe(FREEZE_FROM + FREEZE_MS);

    // The run waited on a named timer, after the third item and before the fourth was promoted.
    const history = (await handle.fetchHistory()).events ?? [];
    const timers = history.filter((event) => event.timerStartedEventAttributes);
    expect(timers).toHaveLength(1);
    const summary = JSON.stringify(timers[0]?.userMetadata?.summary ?? null);
    expect(summary.length).toBeGreaterThan(4);
    const fired = history.find((event) => event.timerFiredEventAttributes)?.eventTime;
    const firedAt = Number(fired?.seconds ?? 0) * 1000 + Math.floor((fired?.nanos ?? 0) / 1e6);
    const endedAt = (position: number) =>
      report.steps.find((step) => step.key === `each[${position}].promote`)?.endedAt ?? NaN;
    for (const position of [0, 1, 2]) expect(endedAt(position)).toBeLessThanOrEqual(firedAt);
    for (let position = 3; position < 10; position += 1)
      expect(endedAt(position)).toBeGreaterThanOrEqual(firedAt);
    // Whoever hears the run was told once that it waits for the window, and why.
    const events = receiver.accepted('/ops') as { event: string; step?: string; message?: string }[];
    const waits = events.filter((event) => event.event === 'awaiting-window');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatchObject({ step: 'each[3].promote' });
    expect(waits[0]?.message).toContain('policy no-promotions-in-freeze');
  });
});
