// Measures over the local cloud's request log (arrival and answer time of each API request).
import type { RequestLogEntry } from '../../local-cloud/stats';

/** The most requests that arrived within any window of `windowMs` (one from each arrival on). */
export function peakInWindow(log: readonly RequestLogEntry[], windowMs: number): number {
  const arrivals = log.map((entry) => entry.receivedAt).sort((a, b) => a - b);
  let peak = 0;
  let first = 0;
  for (let last = 0; last < arrivals.length; last++) {
    while (arrivals[last]! - arrivals[first]! >= windowMs) first++;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}

/**
 * The peak rate, per second, over windows of 5 s. Arrival stamps bunch when an event loop stalls
 * (the sender's between starting a request and writing it, or the local cloud's before it reads
 * it): a single second can then show one or two requests more than were started in it, which a
 * 5-second window averages out.
 */
export function peakRatePerSecond(log: readonly RequestLogEntry[]): number {
  return peakInWindow(log, 5_000) / 5;
}

/** The most requests the local cloud was handling at the same time. */
export function peakOpen(log: readonly RequestLogEntry[]): number {
  const edges = log.flatMap((entry) => [
    { at: entry.receivedAt, step: 1 },
    { at: entry.answeredAt, step: -1 },
  ]);
  // An answer and an arrival at the same instant: the answer first.
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let open = 0;
  let peak = 0;
  for (const edge of edges) peak = Math.max(peak, (open += edge.step));
  return peak;
}
