// The local cloud's handler table (local-cloud/routes/): one handler per catalogue operation, each
// typed by its operation's answer schema, so a handler answering the wrong shape does not compile.
import { ACTION_NAMES } from '../../cloud/operations';
import { handlers } from '../../local-cloud/routes';
import type { HandlerTable } from '../../local-cloud/routes/handler-types';

test('the handler table has exactly the catalogue operations', () => {
  expect(Object.keys(handlers).sort()).toEqual([...ACTION_NAMES].sort());
});

// Compile-time checks (run by `tsc --noEmit`): never called; each @ts-expect-error fails the type
// check if a handler's answer type loosens.
export function typeChecks(): Pick<
  HandlerTable,
  'vpc.get' | 'vpc.delete' | 'service.list' | 'service.metricsSeries' | 'service.metricsAvailableSeries'
> {
  return {
    // @ts-expect-error a VPC's cidr is a string
    'vpc.get': () => ({ id: '1', cidr: 16 }),
    // @ts-expect-error vpc.delete answers without a body
    'vpc.delete': () => ({ message: 'deleted' }),
    // @ts-expect-error service.list answers a list of services, not one
    'service.list': () => ({ service_id: 's' }),
    // @ts-expect-error a series' labels are strings
    'service.metricsSeries': () => [{ labels: { ordinal: 0 }, data: [] }],
    // @ts-expect-error series names are strings
    'service.metricsAvailableSeries': () => [1],
  };
}
