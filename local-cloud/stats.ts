// Request counts per operation and per status, for tests and benchmarks that count API calls, and
// the request log: when each API request arrived and was answered (wall clock), for tests and
// benchmarks that measure how fast and how many at once callers came.

export interface StatsView {
  total: number;
  byStatus: Record<string, number>;
  byAction: Record<string, { total: number; byStatus: Record<string, number> }>;
}

/** Counted under this name when a request matched no operation (unknown route). */
export const UNKNOWN_ACTION = 'unknown';
/** Counted as this status when the connection was destroyed without an answer. */
export const DROPPED = 'dropped';

/** One API request: its operation, project, answer, and when it arrived and was answered. */
export interface RequestLogEntry {
  action: string;
  project: string | null;
  status: number | typeof DROPPED;
  /** Wall clock, epoch ms with fractions. */
  receivedAt: number;
  answeredAt: number;
}

/** The log keeps the newest requests only. */
export const REQUEST_LOG_LIMIT = 200_000;

export class RequestStats {
  private stats: StatsView = emptyStats();
  private entries: RequestLogEntry[] = [];

  /** Counts a request and adds it to the log. */
  record(entry: RequestLogEntry): void {
    this.count(entry.action, entry.status);
    this.entries.push(entry);
    // Trimmed a tenth at a time, not at every request: each trim moves the whole array.
    if (this.entries.length > REQUEST_LOG_LIMIT * 1.1)
      this.entries.splice(0, this.entries.length - REQUEST_LOG_LIMIT);
  }

  requestLog(): RequestLogEntry[] {
    return this.entries.slice(-REQUEST_LOG_LIMIT).map((entry) => ({ ...entry }));
  }

  private count(action: string, status: number | typeof DROPPED): void {
    const key = String(status);
    this.stats.total += 1;
    this.stats.byStatus[key] = (this.stats.byStatus[key] ?? 0) + 1;
    const perAction = (this.stats.byAction[action] ??= { total: 0, byStatus: {} });
    perAction.total += 1;
    perAction.byStatus[key] = (perAction.byStatus[key] ?? 0) + 1;
  }

  view(): StatsView {
    return structuredClone(this.stats);
  }

  reset(): void {
    this.stats = emptyStats();
    this.entries = [];
  }
}

function emptyStats(): StatsView {
  return { total: 0, byStatus: {}, byAction: {} };
}
