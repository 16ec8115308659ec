// What a run tells notification targets (webhooks, Slack-compatible incoming webhooks) and what
// the workflow and the worker's notification activities exchange. Targets and their URLs live in
// the worker configuration (`notifications:`), never in a runbook or in a run's history: the
// workflow only ever names a target. Plain data (no zod), safe in the workflow sandbox.
import type { NotificationEvent, NotifySubscription } from '../dsl/notify-subscriptions';

/** The activity that tells a run which targets hear which of its events (a local activity). */
export const NOTIFY_PLAN_ACTIVITY = 'notify.plan';
/** The activity that delivers one event to one target. */
export const NOTIFY_DELIVER_ACTIVITY = 'notify.deliver';

export interface NotifyPlanInput {
  runbook: string;
  /** The runbook's `notify:` entries. */
  subscriptions: NotifySubscription[];
}

export interface NotifyPlanResult {
  /** Each target that hears this run, with the events it hears (never empty). */
  targets: { target: string; events: NotificationEvent[] }[];
  /** Targets the runbook names that the worker does not define (recorded as failed deliveries). */
  unknown: string[];
  /** The Web UI's base URL, for links to the run. */
  webUiUrl?: string;
  /** How deliveries are retried (the worker configuration's, so the workflow stays deterministic). */
  retry: { maximumAttempts: number; initialIntervalMs: number };
}

/** The commands that answer what a run waits for, as an operator types them. */
export type AnswerCommands = Partial<Record<'approve' | 'reject' | 'retry' | 'skip' | 'rollback', string>>;

/** One event as targets receive it: secret-free (no input values, no target URLs). */
export interface NotificationPayload {
  /** Stable per run and event, so a receiver can drop a redelivery. */
  id: string;
  event: NotificationEvent;
  runbook: string;
  workflowId: string;
  runId: string;
  namespace: string;
  /** Workflow time of the event, ISO 8601. */
  at: string;
  /** The step the event is about (awaiting-approval, held, failed). */
  step?: string;
  /** What the approval asks, or why the step or run failed. */
  message?: string;
  /** The failure's code (held, failed). */
  errorType?: string;
  /** Commands that answer it (awaiting-approval: approve/reject; held: retry/skip/rollback). */
  commands?: AnswerCommands;
  /** The run in the Web UI, when the worker configuration names the Web UI. */
  webUiUrl?: string;
}

export interface NotifyDeliverInput {
  target: string;
  payload: NotificationPayload;
}

/** A delivery that did not succeed, kept in the run's progress. */
export interface NotificationFailure {
  event: NotificationEvent;
  target: string;
  /** Why (an HTTP status or a network error code; never the target's URL). */
  error: string;
}

/** What the run's progress says about its notifications. */
export interface NotificationSummary {
  delivered: number;
  failed: NotificationFailure[];
}

/** Error types of `notify.deliver`. */
export const NOTIFY_DELIVERY_FAILED = 'NOTIFY_DELIVERY_FAILED';
export const NOTIFY_TARGET_UNKNOWN = 'NOTIFY_TARGET_UNKNOWN';
