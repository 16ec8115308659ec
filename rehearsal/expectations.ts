// A case's expectations against what happened: the run's report, the requests it made, what the
// local cloud holds at the end and the run's stored history. Each unmet expectation is one
// mismatch with what was expected and what was found, so a report can say exactly what broke.
import type { RunReport } from '../contract/run-messages';
import { addonsOfServiceType } from '../cloud/requests';
import { type Peering, type ReadReplicaSet, type Service, type Vpc } from '../cloud/models';
import type { StatsView } from '../local-cloud/stats';
import type { ExistedNames } from './case-cloud';
import type { CloudIds } from './cloud-references';
import { existedIn, leftovers, neverExisted, passwordMismatch, secretMismatch } from './inventory-checks';
import type { Expectations } from './test-file-schema';

export interface Mismatch {
  /** Which expectation, e.g. `steps.create`, `cloud.services.orders.status`. */
  what: string;
  expected: unknown;
  actual: unknown;
  /** Shown instead of expected and actual, which are then masked (a secret's comparison). */
  message?: string;
  /** Where the expectation is in the test file (the runner sets it). */
  at?: { line: number; column: number };
}

/** What a case's cloud holds at its end, as the `cloud` expectations read it. */
export type CloudOutcome = Pick<Outcome, 'services' | 'vpcs' | 'peerings' | 'existed' | 'passwordMatches'>;

export interface Outcome {
  report: RunReport;
  calls: StatsView['byAction'];
  /** The operations the run's requests were answered for, in order. */
  sequence: readonly string[];
  services: Service[];
  vpcs: Vpc[];
  /** Each VPC's peerings, by VPC id; a VPC not listed has none that were read. */
  peerings?: Record<string, Peering[]>;
  /** The run's history as Temporal stores it, as text; absent when not fetched. */
  history?: string;
  /** Secret values given to or made by the run. */
  secrets: string[];
  /** Every name that existed during the case; absent when not known (then `absent` is not checked). */
  existed?: ExistedNames;
  /** Whether a service's password is a value, compared by the local cloud without showing it. */
  passwordMatches?: (serviceId: string, candidate: string) => boolean | undefined;
}

function sameValue(expected: unknown, actual: unknown): boolean {
  return JSON.stringify(canonical(expected)) === JSON.stringify(canonical(actual));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  return value;
}

function check(found: Mismatch[], what: string, expected: unknown, actual: unknown): void {
  if (!sameValue(expected, actual)) found.push({ what, expected, actual: actual ?? null });
}

type CloudExpectations = NonNullable<Expectations['cloud']>;
type Fields<T> = Exclude<T, 'absent' | 'present'>;
type ServiceFields = Fields<NonNullable<CloudExpectations['services']>[string]>;
type VpcFields = Fields<NonNullable<CloudExpectations['vpcs']>[string]>;

/** The fields given (nested objects compared field by field, as `ha_replicas.replica_count`). */
function givenFields(expected: object, actual: Record<string, unknown>): [string, unknown, unknown][] {
  return Object.entries(expected)
    .filter(([, value]) => value !== undefined)
    .flatMap(([field, value]): [string, unknown, unknown][] => {
      const found = actual[field];
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        return givenFields(value, (found ?? {}) as Record<string, unknown>).map(([inner, e, a]) => [
          `${field}.${inner}`,
          e,
          a,
        ]);
      return [[field, value, found]];
    });
}

/** The add-on a service was made with, as its type shows it (one type per service). */
function addonsOf(type: Service['service_type']): string[] | undefined {
  return type === undefined ? undefined : addonsOfServiceType(type);
}

function serviceFields(
  expected: Omit<ServiceFields, 'replica_sets'>,
  service: Service,
  vpcName: (id: string | undefined) => string | undefined,
): [string, unknown, unknown][] {
  return givenFields(expected, {
    status: service.status,
    environment: service.metadata?.environment,
    cpu_millis: service.resources?.[0]?.spec?.cpu_millis,
    vpc: vpcName(service.vpc_endpoint?.vpc_id ?? undefined),
    pooler: service.connection_pooler?.endpoint?.host !== undefined,
    addons: addonsOf(service.service_type),
    ha_replicas: {
      replica_count: service.ha_replicas?.replica_count ?? 0,
      sync_replica_count: service.ha_replicas?.sync_replica_count ?? 0,
    },
  });
}

function replicaSetFields(set: ReadReplicaSet): Record<string, unknown> {
  return {
    status: set.status,
    nodes: set.nodes,
    cpu_millis: set.cpu_millis,
    environment: set.metadata?.environment,
    pooler: set.connection_pooler?.endpoint?.host !== undefined,
  };
}

function peeringFields(peering: Peering): Record<string, unknown> {
  return {
    status: peering.status,
    peer_account_id: peering.peer_account_id,
    peer_region_code: peering.peer_region_code,
  };
}

/**
 * Named things expected by name (replica sets, peerings): `absent`, or the fields given. A thing
 * listed twice under one name (a replica set deleted and made again) is matched by its last entry.
 */
function checkNamed<T>(
  found: Mismatch[],
  what: string,
  expected: Record<string, 'absent' | object>,
  listed: readonly T[],
  nameOf: (item: T) => string | undefined,
  fieldsOf: (item: T) => Record<string, unknown>,
  describe: (item: T) => string,
  existed: { names: ReadonlySet<string> | undefined; kind: string },
): void {
  for (const [name, wanted] of Object.entries(expected)) {
    const item = listed.findLast((candidate) => nameOf(candidate) === name);
    if (wanted === 'absent') {
      if (item !== undefined)
        found.push({ what: `${what}.${name}`, expected: 'absent', actual: describe(item) });
      else if (!existedIn(existed.names, name)) found.push(neverExisted(`${what}.${name}`, existed.kind));
      continue;
    }
    if (item === undefined) {
      found.push({ what: `${what}.${name}`, expected: 'present', actual: 'absent' });
      continue;
    }
    for (const [field, value, actual] of givenFields(wanted, fieldsOf(item)))
      check(found, `${what}.${name}.${field}`, value, actual);
  }
}

function checkVpcFields(
  found: Mismatch[],
  name: string,
  wanted: VpcFields,
  vpc: Vpc,
  peerings: readonly Peering[] | undefined,
  existed: ExistedNames | undefined,
): void {
  const { peerings: wantedPeerings, ...fields } = wanted;
  for (const [field, value, actual] of givenFields(fields, { cidr: vpc.cidr, region_code: vpc.region_code }))
    check(found, `cloud.vpcs.${name}.${field}`, value, actual);
  if (wantedPeerings !== undefined)
    checkNamed(
      found,
      `cloud.vpcs.${name}.peerings`,
      wantedPeerings,
      peerings ?? [],
      (peering) => peering.peer_vpc_id,
      peeringFields,
      (peering) => `${peering.status ?? 'present'} (${peering.id ?? '?'})`,
      { names: existed?.peerings.get(name), kind: 'peering' },
    );
}

/** The requests counted per operation against `expect.calls`. */
export function callMismatches(calls: Expectations['calls'], counts: Outcome['calls']): Mismatch[] {
  const found: Mismatch[] = [];
  for (const [operation, count] of Object.entries(calls ?? {}))
    check(found, `calls.${operation}`, count, counts[operation]?.total ?? 0);
  return found;
}

/** What the project holds at the end against `expect.cloud`. */
export function cloudMismatches(
  cloud: Expectations['cloud'],
  outcome: CloudOutcome,
  ids: CloudIds,
): Mismatch[] {
  const found: Mismatch[] = [];
  const peeringsOf = (vpc: Vpc) => (vpc.id !== undefined ? (outcome.peerings?.[vpc.id] ?? []) : []);
  const vpcName = (id: string | undefined) =>
    id === undefined ? undefined : ([...ids.vpcs].find(([, vpcId]) => vpcId === id)?.[0] ?? id);
  for (const [name, wanted] of Object.entries(cloud?.services ?? {})) {
    const service = outcome.services.find((s) => s.name === name);
    if (wanted === 'absent') {
      if (service !== undefined)
        found.push({
          what: `cloud.services.${name}`,
          expected: 'absent',
          actual: `${service.status ?? 'present'} (${service.service_id ?? '?'})`,
        });
      else if (!existedIn(outcome.existed?.services, name))
        found.push(neverExisted(`cloud.services.${name}`, 'service'));
      continue;
    }
    if (service === undefined) {
      found.push({ what: `cloud.services.${name}`, expected: 'present', actual: 'absent' });
      continue;
    }
    const { replica_sets: sets, password, ...fields } = wanted;
    if (password !== undefined) {
      const differs = passwordMismatch(name, password, service.service_id, outcome.passwordMatches);
      if (differs !== undefined) found.push(differs);
    }
    for (const [field, expected, actual] of serviceFields(fields, service, vpcName))
      check(found, `cloud.services.${name}.${field}`, expected, actual);
    if (sets !== undefined)
      checkNamed(
        found,
        `cloud.services.${name}.replica_sets`,
        sets,
        service.read_replica_sets ?? [],
        (set) => set.name,
        replicaSetFields,
        (set) => `${set.status ?? 'present'} (${set.id ?? '?'})`,
        { names: outcome.existed?.replicaSets.get(name), kind: 'replica set' },
      );
  }
  for (const [name, wanted] of Object.entries(cloud?.vpcs ?? {})) {
    const vpc = outcome.vpcs.find((v) => v.name === name);
    if (typeof wanted === 'string') {
      check(found, `cloud.vpcs.${name}`, wanted, vpc !== undefined ? 'present' : 'absent');
      if (wanted === 'absent' && vpc === undefined && !existedIn(outcome.existed?.vpcs, name))
        found.push(neverExisted(`cloud.vpcs.${name}`, 'VPC'));
      continue;
    }
    if (vpc === undefined) {
      found.push({ what: `cloud.vpcs.${name}`, expected: 'present', actual: 'absent' });
      continue;
    }
    checkVpcFields(found, name, wanted, vpc, peeringsOf(vpc), outcome.existed);
  }
  if (cloud?.nothingElse === true)
    found.push(...leftovers(cloud, outcome.services, outcome.vpcs, peeringsOf));
  return found;
}

export function unmetExpectations(expect: Expectations, outcome: Outcome, ids: CloudIds): Mismatch[] {
  const found: Mismatch[] = [];
  const { report } = outcome;
  // A run that waits for a closed change window is still running: its case says `waiting`.
  const status = report.status === 'running' && report.windowWait !== undefined ? 'waiting' : report.status;
  check(found, 'status', expect.status, status);
  if (expect.policies !== undefined) {
    const records = [...(report.admission?.policies ?? []), ...(report.policies ?? [])];
    const actual = records.map((record) => ({
      rule: record.rule,
      step: record.stepKey ?? 'start',
      effect: record.effect,
      ...(record.effect === 'window' && { open: record.open === true }),
      ...(record.open === false &&
        record.opensAt != null && { opensAt: new Date(record.opensAt).toISOString() }),
    }));
    const expected = expect.policies;
    const matches =
      actual.length === expected.length &&
      expected.every((want, i) => {
        const got = actual[i];
        return (
          got !== undefined &&
          got.rule === want.rule &&
          got.step === want.step &&
          (want.effect === undefined || got.effect === want.effect) &&
          (want.open === undefined || got.open === want.open) &&
          (want.opensAt === undefined || got.opensAt === new Date(want.opensAt).toISOString())
        );
      });
    if (!matches) found.push({ what: 'policies', expected, actual });
  }
  if (expect.failure !== undefined) {
    const failure = report.failure;
    if (expect.failure.step !== undefined)
      check(found, 'failure.step', expect.failure.step, failure?.stepKey);
    if (expect.failure.type !== undefined) check(found, 'failure.type', expect.failure.type, failure?.type);
    if (expect.failure.message !== undefined && !(failure?.message ?? '').includes(expect.failure.message))
      found.push({
        what: 'failure.message',
        expected: `contains "${expect.failure.message}"`,
        actual: failure?.message ?? null,
      });
  }
  for (const [name, value] of Object.entries(expect.outputs ?? {})) {
    if (!(name in report.outputs))
      found.push({ what: `outputs.${name}`, expected: value, actual: '(no such output)' });
    else if (!sameValue(value, report.outputs[name]))
      found.push(
        // A secret output's value (and so the one expected) stays out of reports, logs and JUnit files.
        report.secretOutputs.includes(name)
          ? secretMismatch(`outputs.${name}`, `secret output ${name} differs from the expected value`)
          : { what: `outputs.${name}`, expected: value, actual: report.outputs[name] ?? null },
      );
  }
  for (const [step, status] of Object.entries(expect.steps ?? {})) {
    const record = report.steps.find((s) => s.key === step) ?? report.steps.find((s) => s.id === step);
    check(found, `steps.${step}`, status, record?.status ?? '(no such step)');
  }
  found.push(...callMismatches(expect.calls, outcome.calls));
  if (expect.callOrder !== undefined) {
    // Each operation's first request, in the order they came; one never called comes last.
    const first = (operation: string) => outcome.sequence.indexOf(operation);
    const called = expect.callOrder.filter((operation) => first(operation) >= 0);
    const actual = [
      ...called.sort((a, b) => first(a) - first(b)),
      ...expect.callOrder.filter((operation) => first(operation) < 0).map((op) => `${op} (never called)`),
    ];
    check(found, 'callOrder', expect.callOrder, actual);
  }
  found.push(...cloudMismatches(expect.cloud, outcome, ids));
  if (expect.noSecretsInHistory === true && outcome.history !== undefined) {
    const leaked = outcome.secrets.filter((secret) => outcome.history?.includes(secret));
    if (leaked.length > 0)
      found.push({
        what: 'noSecretsInHistory',
        expected: 'no secret value in the history',
        actual: `${leaked.length} secret value${leaked.length === 1 ? '' : 's'} found in clear`,
      });
  }
  return found;
}
