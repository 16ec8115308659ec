// An activity of a run as its history tells it: shared by the timeline (history-timeline.ts) and
// the reader of local activity markers (local-activity-markers.ts).

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
  /** Set for a local activity: its sequence number (also its activity id) and its summary. */
  local?: { seq: number; summary?: string };
}
