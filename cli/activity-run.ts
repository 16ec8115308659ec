// An activity of a run as its history tells it, or, for a call run as a local activity, as its
// step's record and failed attempts tell it (history-timeline.ts).

export interface ActivityRun {
  activityId: string;
  type: string;
  scheduledAt: number;
  endedAt?: number;
  /** How many attempts ran (1 when it worked the first time; 0 while none has started). */
  attempts: number;
  outcome: 'completed' | 'failed' | 'timed-out' | 'cancelled' | 'running';
  /** Why it ended failed, timed out or cancelled. */
  failure?: string;
  /** Why the attempt before the last one failed (the server keeps only the latest). */
  retriedAfter?: string;
  /** A call run as a local activity: built from its step's record (cli/history-timeline.ts). */
  local?: true;
}
