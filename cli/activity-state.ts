// What the CLI knows of a step's running activity: shared by the run observer (run-observer.ts)
// and the reader of local calls' progress (local-call-progress.ts).

export interface ActivityState {
  attempt: number;
  /** The last attempt's failure, when the activity is being retried. */
  lastFailure?: string;
  /** A wait's heartbeat: polls so far and the last status it saw. */
  polls?: number;
  lastStatus?: string;
  lastError?: string;
  /** When the heartbeat these details came with reached Temporal (heartbeats are throttled). */
  heartbeatAt?: number;
  /** Since when (as far as this CLI has watched) the wait has seen `lastStatus` (trackActivities). */
  lastStatusSince?: number;
}
