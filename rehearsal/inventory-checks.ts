// Expectations on the case cloud as a whole: an `absent` name must have existed at some point of
// the case (else a typo passes), `nothingElse` finds whatever is left that the case does not name
// (a resource leaked under another name), and a service's password is compared as the local cloud
// keeps it — a mismatch says that it differs, never what either value is.
import type { Service, Vpc } from '../cloud/models';
import { SECRET_MASK } from '../cloud/redact-text';
import type { Mismatch } from './expectations';
import type { Expectations } from './test-file-schema';

/** A mismatch about a secret value: both sides masked, the message says only that they differ. */
export function secretMismatch(what: string, message: string): Mismatch {
  return { what, expected: SECRET_MASK, actual: SECRET_MASK, message };
}

/** An `absent` that could not fail: nothing of that name was there at any point of the case. */
export function neverExisted(what: string, kind: string): Mismatch {
  return {
    what,
    expected: `absent (a ${kind} that existed during the case)`,
    actual: `no ${kind} of this name existed at any point of the case`,
  };
}

type CloudExpectations = NonNullable<Expectations['cloud']>;

/** Each resource the project still holds that the expectation does not name. */
export function leftovers(
  wanted: CloudExpectations,
  services: readonly Service[],
  vpcs: readonly Vpc[],
  peeringsOf: (vpc: Vpc) => readonly { peer_vpc_id?: string; status?: string }[],
): Mismatch[] {
  const found: Mismatch[] = [];
  const left = (what: string, status: string | undefined) =>
    found.push({ what, expected: 'nothing else (cloud.nothingElse)', actual: `${status ?? 'present'}` });
  for (const service of services) {
    const name = service.name ?? service.service_id ?? '?';
    const expected = wanted.services?.[name];
    if (expected === undefined) left(`cloud.services.${name}`, service.status);
    else if (typeof expected === 'object')
      for (const set of service.read_replica_sets ?? [])
        if (expected.replica_sets?.[set.name ?? ''] === undefined)
          left(`cloud.services.${name}.replica_sets.${set.name ?? set.id ?? '?'}`, set.status);
  }
  for (const vpc of vpcs) {
    const name = vpc.name ?? vpc.id ?? '?';
    const expected = wanted.vpcs?.[name];
    if (expected === undefined) left(`cloud.vpcs.${name}`, 'present');
    else if (typeof expected === 'object')
      for (const peering of peeringsOf(vpc))
        if (expected.peerings?.[peering.peer_vpc_id ?? ''] === undefined)
          left(`cloud.vpcs.${name}.peerings.${peering.peer_vpc_id ?? '?'}`, peering.status);
  }
  return found;
}

/** The password expectation of a service, checked through the local cloud's digest comparison. */
export function passwordMismatch(
  name: string,
  expected: string,
  serviceId: string | undefined,
  matches: ((serviceId: string, candidate: string) => boolean | undefined) | undefined,
): Mismatch | undefined {
  const what = `cloud.services.${name}.password`;
  const verdict = serviceId !== undefined ? matches?.(serviceId, expected) : undefined;
  if (verdict === true) return undefined;
  return secretMismatch(
    what,
    verdict === false
      ? 'password differs from the expected value'
      : "the local cloud does not know this service's password, so it cannot be compared",
  );
}

/** Whether an `absent` name can be checked: it existed, or what existed is not known. */
export function existedIn(existed: ReadonlySet<string> | undefined, name: string): boolean {
  return existed === undefined || existed.has(name);
}
