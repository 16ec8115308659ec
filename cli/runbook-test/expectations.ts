// A case's expectations against what happened: the run's report, the requests it made, what the
// local cloud holds at the end and the run's stored history. Each unmet expectation is one
// mismatch with what was expected and what was found, so a report can say exactly what broke.
import type { RunReport } from '../../contract/run-messages';
import type { Service, Vpc } from '../../cloud/models';
import type { StatsView } from '../../simulator/stats';
import { SECRET_MASK } from '../output/style';
import type { CloudIds } from './cloud-references';
import type { Expectations } from './test-file-schema';

export interface Mismatch {
  /** Which expectation, e.g. `steps.create`, `cloud.services.orders.status`. */
  what: string;
  expected: unknown;
  actual: unknown;
}

export interface Outcome {
  report: RunReport;
  calls: StatsView['byAction'];
  services: Service[];
  vpcs: Vpc[];
  /** The run's history as Temporal stores it, as text; absent when not fetched. */
  history?: string;
  /** Secret values given to or made by the run. */
  secrets: string[];
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

function serviceFields(
  expected: Exclude<NonNullable<NonNullable<Expectations['cloud']>['services']>[string], 'absent'>,
  service: Service,
  vpcName: (id: string | undefined) => string | undefined,
): [string, unknown, unknown][] {
  const actual: Record<string, unknown> = {
    status: service.status,
    environment: service.metadata?.environment,
    cpu_millis: service.resources?.[0]?.spec?.cpu_millis,
    vpc: vpcName(service.vpc_endpoint?.vpc_id ?? undefined),
    pooler: service.connection_pooler?.endpoint?.host !== undefined,
  };
  return Object.entries(expected)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => [field, value, actual[field]]);
}

export function unmetExpectations(expect: Expectations, outcome: Outcome, ids: CloudIds): Mismatch[] {
  const found: Mismatch[] = [];
  const { report } = outcome;
  check(found, 'status', expect.status, report.status);
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
      found.push({
        what: `outputs.${name}`,
        expected: value,
        // A secret output's value stays out of reports, CI logs and JUnit files.
        actual: report.secretOutputs.includes(name) ? SECRET_MASK : (report.outputs[name] ?? null),
      });
  }
  for (const [step, status] of Object.entries(expect.steps ?? {})) {
    const record = report.steps.find((s) => s.key === step) ?? report.steps.find((s) => s.id === step);
    check(found, `steps.${step}`, status, record?.status ?? '(no such step)');
  }
  for (const [operation, count] of Object.entries(expect.calls ?? {}))
    check(found, `calls.${operation}`, count, outcome.calls[operation]?.total ?? 0);
  const vpcName = (id: string | undefined) =>
    id === undefined ? undefined : ([...ids.vpcs].find(([, vpcId]) => vpcId === id)?.[0] ?? id);
  for (const [name, wanted] of Object.entries(expect.cloud?.services ?? {})) {
    const service = outcome.services.find((s) => s.name === name);
    if (wanted === 'absent') {
      if (service !== undefined)
        found.push({
          what: `cloud.services.${name}`,
          expected: 'absent',
          actual: `${service.status ?? 'present'} (${service.service_id ?? '?'})`,
        });
      continue;
    }
    if (service === undefined) {
      found.push({ what: `cloud.services.${name}`, expected: 'present', actual: 'absent' });
      continue;
    }
    for (const [field, expected, actual] of serviceFields(wanted, service, vpcName))
      check(found, `cloud.services.${name}.${field}`, expected, actual);
  }
  for (const [name, wanted] of Object.entries(expect.cloud?.vpcs ?? {})) {
    const present = outcome.vpcs.some((v) => v.name === name);
    check(found, `cloud.vpcs.${name}`, wanted, present ? 'present' : 'absent');
  }
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
