// Tells the run's notification targets about its events: started, awaiting approval (with the
// commands that answer it), held at a failed step (with retry/skip/rollback), compensated, and how
// it ended. Which targets hear which events comes once from the worker, with its admission of the
// run (`run.admit`; runs started before 2027-09 ask `notify.plan`, a local activity): the targets
// and their URLs are the worker's configuration, never the run's input.
// Each delivery is an activity with retries that never blocks or fails the run: its outcome is
// counted in the run's progress, a failure kept with its reason. The run waits for deliveries
// still under way before it closes, so its last event is not lost. Workflow code.
import {
  CancellationScope,
  log,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import type { RunbookDefinition } from '../dsl/definition';
import type { NotificationEvent } from '../dsl/notify-subscriptions';
import {
  NOTIFY_DELIVER_ACTIVITY,
  NOTIFY_PLAN_ACTIVITY,
  NOTIFY_TARGET_UNKNOWN,
  type NotificationPayload,
  type NotificationSummary,
  type NotifyPlanResult,
} from '../contract/notification-messages';
import { approvalCommands, holdCommands } from './answer-commands';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';
import type { RunState } from './run-state';
import { summariseFailure } from './step-failure';
import { createRedactor } from '../cloud/redact-text';

const planNotifications = proxyLocalActivities<TidelineActivities>({
  startToCloseTimeout: '10s',
  summary: 'which notification targets hear this run',
  retry: { maximumAttempts: 3, initialInterval: '1s' },
})[NOTIFY_PLAN_ACTIVITY];

type EventDetails = Pick<NotificationPayload, 'step' | 'message' | 'errorType' | 'commands'>;

export class RunNotifier {
  private readonly seen = new Set<string>();
  private readonly deliveries: Promise<void>[] = [];
  private sequence = 0;
  /** A secret input's value never leaves the run in a notification. */
  private readonly scrub: (text: string) => string;

  private constructor(
    private readonly runbook: string,
    private readonly plan: NotifyPlanResult | undefined,
    private readonly summary: NotificationSummary,
    secretValues: ReadonlySet<string>,
  ) {
    this.scrub = createRedactor(secretValues);
  }

  /** A notifier that tells nobody (child runs, runs started before notifications existed). */
  static silent(): RunNotifier {
    return new RunNotifier('', undefined, { delivered: 0, failed: [] }, new Set());
  }

  /**
   * Tells the targets that hear this run that it started: those the admission named (`admitted`:
   * null when none does), or, in a run started before the admission named them (undefined), those
   * `notify.plan` names. Only top-level runs notify: a child runbook or batch is part of its
   * parent's story.
   */
  static async start(
    definition: RunbookDefinition,
    state: RunState,
    admitted: NotifyPlanResult | null | undefined,
  ): Promise<RunNotifier> {
    if (workflowInfo().parent !== undefined || !hasPatch(PATCHES.notifications)) return RunNotifier.silent();
    if (admitted === null) return RunNotifier.silent();
    const plan = admitted ?? (await RunNotifier.askPlan(definition));
    if (plan === undefined) return RunNotifier.silent();
    const failed = plan.unknown.map((target) => ({
      event: 'started' as const,
      target,
      error: "not in the worker configuration's notifications.targets",
    }));
    if (plan.targets.length === 0 && failed.length === 0) return RunNotifier.silent();
    const summary: NotificationSummary = { delivered: 0, failed };
    state.notifications = summary;
    const notifier = new RunNotifier(definition.name, plan, summary, state.secretValues);
    notifier.emit('started', {});
    return notifier;
  }

  /** Which targets hear this run, asked of the worker with `notify.plan` (runs before 2027-09). */
  private static async askPlan(definition: RunbookDefinition): Promise<NotifyPlanResult | undefined> {
    try {
      return await CancellationScope.nonCancellable(() =>
        planNotifications({ runbook: definition.name, subscriptions: definition.notify ?? [] }),
      );
    } catch (error) {
      log.warn('notification targets could not be resolved; this run notifies nobody', {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  }

  /** Tells about approvals and holds that opened since the last look (called on every change). */
  observe(state: RunState): void {
    if (this.plan === undefined) return;
    for (const approval of state.pendingApprovals()) {
      if (!this.firstTime(`approval ${approval.stepKey} ${approval.deadline}`)) continue;
      this.emit('awaiting-approval', {
        step: approval.stepKey,
        message: approval.message,
        commands: approvalCommands(approval.stepKey),
      });
    }
    const window = state.governance?.windowWait;
    if (window !== undefined && this.firstTime(`window ${window.stepKey} ${window.until}`)) {
      this.emit('awaiting-window', {
        step: window.stepKey,
        message: `change window ${window.calendar} (policy ${window.rule}) is closed; the step goes on when it opens at ${new Date(window.until).toISOString()}`,
      });
    }
    if (state.status !== 'running') return;
    for (const held of state.holds?.list() ?? []) {
      if (!this.firstTime(`held ${held.stepKey} ${held.heldAt}`)) continue;
      this.emit('held', {
        step: held.stepKey,
        message: held.error.message,
        errorType: held.error.type,
        commands: holdCommands(held.stepKey),
      });
    }
  }

  /** Tells how the run ended (after its compensation, if any), then waits for every delivery. */
  async finish(state: RunState): Promise<void> {
    if (this.plan !== undefined) {
      const { steps } = state.progress();
      const undone = steps.filter((s) => s.status === 'compensated').length;
      const undoFailed = steps.filter((s) => s.status === 'compensation-failed');
      if (undone > 0 || undoFailed.length > 0) {
        const failedText =
          undoFailed.length > 0 ? `; undoing failed at ${undoFailed.map((s) => s.key).join(', ')}` : '';
        this.emit('compensated', { message: `${undone} step(s) undone${failedText}` });
      }
      const failure = state.failure;
      if (state.status === 'succeeded') this.emit('succeeded', {});
      else if (state.status === 'cancelled') this.emit('cancelled', {});
      else if (state.status === 'failed' && failure !== undefined)
        this.emit('failed', { step: failure.stepKey, message: failure.message, errorType: failure.type });
    }
    await CancellationScope.nonCancellable(() => Promise.all(this.deliveries));
  }

  private firstTime(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  private emit(event: NotificationEvent, details: EventDetails): void {
    const plan = this.plan;
    if (plan === undefined) return;
    const info = workflowInfo();
    this.sequence += 1;
    const message = details.message === undefined ? undefined : this.scrub(details.message);
    const payload: NotificationPayload = {
      id: `${info.workflowId}/${info.runId}/${this.sequence}`,
      event,
      runbook: this.runbook,
      workflowId: info.workflowId,
      runId: info.runId,
      namespace: info.namespace,
      at: new Date(Date.now()).toISOString(),
      ...(details.step !== undefined && { step: details.step }),
      ...(message !== undefined && { message }),
      ...(details.errorType !== undefined && { errorType: details.errorType }),
      ...(details.commands !== undefined && { commands: details.commands }),
      ...(plan.webUiUrl !== undefined && {
        webUiUrl: `${plan.webUiUrl}/namespaces/${encodeURIComponent(info.namespace)}/workflows/${encodeURIComponent(info.workflowId)}/${info.runId}/history`,
      }),
    };
    const deliver = proxyActivities<TidelineActivities>({
      startToCloseTimeout: '15s',
      summary: `notify: ${event}`,
      retry: {
        maximumAttempts: plan.retry.maximumAttempts,
        initialInterval: plan.retry.initialIntervalMs,
        backoffCoefficient: 2,
        maximumInterval: '5m',
        nonRetryableErrorTypes: [NOTIFY_TARGET_UNKNOWN],
      },
    })[NOTIFY_DELIVER_ACTIVITY];
    for (const { target, events } of plan.targets) {
      if (!events.includes(event)) continue;
      const delivery = CancellationScope.nonCancellable(() => deliver({ target, payload })).then(
        () => {
          this.summary.delivered += 1;
        },
        (error: unknown) => {
          this.summary.failed.push({ event, target, error: summariseFailure(error).message });
        },
      );
      this.deliveries.push(delivery);
    }
  }
}
