// The notification activities. `notify.plan` (a local activity, once at the start of a run) says
// which configured targets hear which of the run's events: the worker's own targets (for every
// runbook, or those their `runbooks` patterns name) and the targets the runbook names itself.
// `notify.deliver` posts one event to one target: JSON for a webhook, `{text}` for a
// Slack-compatible incoming webhook. A target's URL stays here: the workflow only names targets,
// and no error message quotes a URL (only an HTTP status or a network error code).
import { ApplicationFailure } from '@temporalio/common';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../dsl/notify-subscriptions';
import {
  NOTIFY_DELIVER_ACTIVITY,
  NOTIFY_DELIVERY_FAILED,
  NOTIFY_PLAN_ACTIVITY,
  NOTIFY_TARGET_UNKNOWN,
  type NotifyDeliverInput,
  type NotifyPlanInput,
  type NotifyPlanResult,
} from '../contract/notification-messages';
import type { NotificationSettings, NotificationTarget } from './deps';
import { slackMessage } from './notify-slack';
import { globMatches } from '../dsl/glob';

/** How long one post may take. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  targets: new Map(),
  maxAttempts: 5,
  retryIntervalMs: 2_000,
};

function matchesRunbook(patterns: readonly string[] | undefined, runbook: string): boolean {
  return patterns === undefined || patterns.some((pattern) => globMatches(pattern, runbook));
}

/** Which targets hear which events of a run of `input.runbook`. */
export function planNotifications(settings: NotificationSettings, input: NotifyPlanInput): NotifyPlanResult {
  const heard = new Map<string, Set<NotificationEvent>>();
  const hear = (target: string, events: readonly NotificationEvent[]) => {
    const set = heard.get(target) ?? new Set<NotificationEvent>();
    for (const event of events) set.add(event);
    heard.set(target, set);
  };
  for (const [name, target] of settings.targets) {
    if (matchesRunbook(target.runbooks, input.runbook)) hear(name, target.events ?? NOTIFICATION_EVENTS);
  }
  const unknown: string[] = [];
  for (const subscription of input.subscriptions) {
    if (!settings.targets.has(subscription.target)) {
      if (!unknown.includes(subscription.target)) unknown.push(subscription.target);
      continue;
    }
    hear(subscription.target, subscription.events ?? NOTIFICATION_EVENTS);
  }
  return {
    targets: [...heard].map(([target, events]) => ({
      target,
      events: NOTIFICATION_EVENTS.filter((event) => events.has(event)),
    })),
    unknown,
    ...(settings.webUiUrl !== undefined && { webUiUrl: settings.webUiUrl }),
    retry: { maximumAttempts: settings.maxAttempts, initialIntervalMs: settings.retryIntervalMs },
  };
}

/** The network error's code (ECONNREFUSED, UND_ERR_…), never its message (it may quote the URL). */
function networkErrorCode(error: unknown): string {
  // Duck-typed: fetch's errors may come from another realm than this module's Error.
  const failed = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    cause?: unknown;
  };
  const cause = (typeof failed.cause === 'object' && failed.cause !== null ? failed.cause : {}) as {
    code?: unknown;
  };
  if (typeof cause.code === 'string') return cause.code;
  if (failed.name === 'TimeoutError') return `no answer within ${DELIVERY_TIMEOUT_MS} ms`;
  return 'network error';
}

function failure(target: string, why: string, retryable: boolean): ApplicationFailure {
  return ApplicationFailure.create({
    type: NOTIFY_DELIVERY_FAILED,
    message: `notification target ${target}: ${why}`,
    nonRetryable: !retryable,
  });
}

/** Posts one body to one target; a failure says why without quoting the URL. */
export async function postToTarget(
  name: string,
  target: NotificationTarget,
  body: unknown,
  fetchImpl: typeof fetch,
): Promise<void> {
  let response: Response;
  try {
    response = await fetchImpl(target.url.reveal(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    throw failure(name, networkErrorCode(error), true);
  }
  await response.body?.cancel();
  if (response.ok) return;
  // A refusal (400, 403, 404, a gone webhook) stays a refusal; a busy or failing receiver may recover.
  const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
  throw failure(name, `HTTP ${response.status}`, retryable);
}

/** The target the configuration names; a name it lacks fails for good (NOTIFY_TARGET_UNKNOWN). */
export function configuredTarget(settings: NotificationSettings, name: string): NotificationTarget {
  const target = settings.targets.get(name);
  if (target === undefined) {
    throw ApplicationFailure.create({
      type: NOTIFY_TARGET_UNKNOWN,
      message: `notification target ${name} is not in this worker's configuration (notifications.targets)`,
      nonRetryable: true,
    });
  }
  return target;
}

export function createNotifyActivities(
  settings: NotificationSettings = DEFAULT_NOTIFICATION_SETTINGS,
  fetchImpl: typeof fetch = fetch,
) {
  return {
    async [NOTIFY_PLAN_ACTIVITY](input: NotifyPlanInput): Promise<NotifyPlanResult> {
      return planNotifications(settings, input);
    },
    async [NOTIFY_DELIVER_ACTIVITY](input: NotifyDeliverInput): Promise<void> {
      const target = configuredTarget(settings, input.target);
      const body = target.type === 'slack' ? slackMessage(input.payload) : input.payload;
      await postToTarget(input.target, target, body, fetchImpl);
    },
  };
}
