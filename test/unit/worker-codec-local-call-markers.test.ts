// A local call's result is stored in its marker (not in an activity's completion event): the
// payload codec must encrypt it there too. Checked on the replay gate's recording of a
// provisioning run whose attach, pooler and prod calls ran locally.
import { readFileSync } from 'node:fs';
import { historyFile } from '../helpers/history-recorder';

interface Payload {
  metadata?: Record<string, string>;
  data?: string;
}
interface MarkerEvent {
  eventType?: string;
  markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, { payloads?: Payload[] }> };
}

const encoding = (payload: Payload) => Buffer.from(payload.metadata?.encoding ?? '', 'base64').toString();

test('local-call markers hold their results encrypted, and nothing of the run in plain text', () => {
  const raw = readFileSync(historyFile('provision-local-calls.2026-12'), 'utf8');
  const events = (JSON.parse(raw) as { events: MarkerEvent[] }).events;
  const markers = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(markers).toHaveLength(3);
  for (const marker of markers) {
    const details = marker.markerRecordedEventAttributes?.details ?? {};
    expect((details.result?.payloads ?? []).map(encoding)).toEqual(['binary/encrypted']);
  }
  // What markers keep in plain JSON (the SDK's bookkeeping) names no service and no answer.
  const plain = markers.flatMap((marker) =>
    Object.values(marker.markerRecordedEventAttributes?.details ?? {})
      .flatMap((detail) => detail.payloads ?? [])
      .filter((payload) => encoding(payload) === 'json/plain')
      .map((payload) => Buffer.from(payload.data ?? '', 'base64').toString()),
  );
  expect(plain.length).toBeGreaterThan(0);
  for (const text of plain) expect(text).not.toMatch(/local-orders|READY|service_id/);
});
