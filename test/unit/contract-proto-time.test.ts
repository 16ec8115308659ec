// Temporal's protobuf timestamps as epoch milliseconds: seconds as a number or a Long, nanos
// truncated to whole milliseconds, an absent timestamp as 0.
import { google } from '@temporalio/proto';
import { timestampMillis } from '../../contract/proto-time';

test('reads seconds as a number or a Long, and nanos to the millisecond', () => {
  expect(timestampMillis({ seconds: 1_700_000_000, nanos: 123_999_999 })).toBe(1_700_000_000_123);
  // As the SDK decodes a history: seconds as a Long.
  const decoded = google.protobuf.Timestamp.fromObject({ seconds: 1_700_000_000, nanos: 5_000_000 });
  expect(typeof decoded.seconds).toBe('object');
  expect(timestampMillis(decoded)).toBe(1_700_000_000_005);
  expect(timestampMillis({ seconds: 2 })).toBe(2_000);
});

test('an absent timestamp is 0', () => {
  expect(timestampMillis(undefined)).toBe(0);
  expect(timestampMillis(null)).toBe(0);
  expect(timestampMillis({})).toBe(0);
});
