// A service's add-on and its type are one mapping (cloud/requests.ts): the local cloud gives a
// created service its type from it, and a rehearsal reads the add-on back from the type, in either
// dialect's name for a time-series service.
import { ServiceType } from '../../cloud/models';
import { ServiceAddon, addonsOfServiceType, serviceTypeOfAddons } from '../../cloud/requests';

test('each add-on gives its type, and the type gives the add-on back', () => {
  for (const addon of ServiceAddon.options) {
    const type = serviceTypeOfAddons([addon]);
    expect(type).not.toBe('POSTGRES');
    expect(addonsOfServiceType(type)).toEqual([addon]);
  }
});

test('no add-on is a POSTGRES service, which was created with none', () => {
  expect(serviceTypeOfAddons(undefined)).toBe('POSTGRES');
  expect(serviceTypeOfAddons([])).toBe('POSTGRES');
  expect(addonsOfServiceType('POSTGRES')).toEqual([]);
});

test('a time-series service under the current dialect’s name reads as the time-series add-on', () => {
  expect(serviceTypeOfAddons(['time-series'])).toBe('NEUTRALDB');
  expect(addonsOfServiceType('TIMESCALEDB')).toEqual(['time-series']);
  expect(addonsOfServiceType('VECTOR')).toEqual(['ai']);
});

test('every known type maps to add-ons; a type no create gives maps to none', () => {
  for (const type of ServiceType.options) expect(addonsOfServiceType(type)).toBeDefined();
  expect(addonsOfServiceType('GRAPHDB')).toBeUndefined();
});
