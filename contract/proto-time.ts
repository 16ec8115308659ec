// Temporal's protobuf timestamps (history event times, heartbeat times) as epoch milliseconds.

/** A timestamp (its seconds may be a Long, which Number reads) in epoch ms; 0 when absent. */
export function timestampMillis(
  time: { seconds?: unknown; nanos?: number | null } | null | undefined,
): number {
  if (!time) return 0;
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}
