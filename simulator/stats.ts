// Request counts per operation and per status, for tests and benchmarks that count API calls.

export interface StatsView {
  total: number;
  byStatus: Record<string, number>;
  byAction: Record<string, { total: number; byStatus: Record<string, number> }>;
}

/** Counted under this name when a request matched no operation (unknown route). */
export const UNKNOWN_ACTION = 'unknown';
/** Counted as this status when the connection was destroyed without an answer. */
export const DROPPED = 'dropped';

export class RequestStats {
  private stats: StatsView = emptyStats();

  record(action: string, status: number | typeof DROPPED): void {
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
  }
}

function emptyStats(): StatsView {
  return { total: 0, byStatus: {}, byAction: {} };
}
