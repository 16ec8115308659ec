// How `npm run bench:events` writes one history event as a line (bench/history-events.ts): the
// event type without its prefix, and what the event is about where the type alone does not say.
import { temporal } from '@temporalio/proto';
import { describeEvent } from '../../bench/history-events';

const { EventType } = temporal.api.enums.v1;

test('markers by name, scheduled activities by type, upserts by the attributes they set', () => {
  expect(
    describeEvent({
      eventType: EventType.EVENT_TYPE_MARKER_RECORDED,
      markerRecordedEventAttributes: { markerName: 'core_local_activity' },
    }),
  ).toBe('MARKER_RECORDED core_local_activity');
  expect(
    describeEvent({
      eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
      activityTaskScheduledEventAttributes: { activityType: { name: 'service.create' } },
    }),
  ).toBe('ACTIVITY_TASK_SCHEDULED service.create');
  expect(
    describeEvent({
      eventType: EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
      upsertWorkflowSearchAttributesEventAttributes: {
        searchAttributes: { indexedFields: { TidelineState: {}, TidelineProject: {} } },
      },
    }),
  ).toBe('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES TidelineProject,TidelineState');
});

test('other events by their type alone', () => {
  expect(describeEvent({ eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED })).toBe(
    'WORKFLOW_TASK_COMPLETED',
  );
  expect(describeEvent({})).toBe('UNSPECIFIED');
});
