// What a runbook may say about notifications (`notify:`): the events a run notifies and the name
// of a target the worker defines. Plain data, safe in the workflow sandbox.

/** Events a run notifies, in the order a run meets them. */
export const NOTIFICATION_EVENTS = [
  'started',
  'awaiting-approval',
  /** A change waits for its change window (a worker policy) to open. */
  'awaiting-window',
  'held',
  'compensated',
  'failed',
  'cancelled',
  'succeeded',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** A notification target's name, as the worker configuration defines it and a runbook names it. */
export const NOTIFICATION_TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A runbook's own subscription (`notify:`): a target the worker defines, and which events. */
export interface NotifySubscription {
  target: string;
  /** Absent: every event. */
  events?: NotificationEvent[];
}
