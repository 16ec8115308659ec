// The metricAnomaly fault (local-cloud/fault-schema.ts, faults.ts, metrics.ts): the rule's schema,
// which reads it applies to, and what a series reads under it. Over HTTP:
// test/integration/local-cloud-metric-anomaly.test.ts.
import { ManualClock } from '../../local-cloud/clock';
import { FaultRuleInput, METRIC_SERIES_ACTIONS, type FaultRuleSpec } from '../../local-cloud/fault-schema';
import { FaultInjector } from '../../local-cloud/faults';
import { metricSeries } from '../../local-cloud/metrics';
import { SeededRandom } from '../../local-cloud/random';
import type { ServiceRecord } from '../../local-cloud/state';
import { TestFault, faultRule } from '../../rehearsal/test-file-schema';

const MINUTE = 60_000;
const START = Date.parse('2025-01-01T00:00:00Z');
const CPU = 'timescale_cloud_system_cpu_usage_millicores';

function service(overrides: Partial<ServiceRecord> = {}): ServiceRecord {
  return {
    id: 'svc0000001',
    projectId: 'project001',
    name: 'web-07',
    regionCode: 'us-east-1',
    serviceType: 'POSTGRES',
    created: new Date(START).toISOString(),
    createdAt: START,
    status: 'READY',
    steps: [],
    resourceId: 'res0000001',
    cpuMillis: 2000,
    memoryGbs: 8,
    haReplicas: 1,
    syncReplicas: 0,
    environment: 'DEV',
    poolerEnabled: false,
    vpcId: null,
    port: 5432,
    poolerPort: 6432,
    vpcPort: 5433,
    forkedFrom: null,
    firstReadyAt: START,
    usage: { cpuShare: 0.2, memoryShare: 0.5, storageMb: 100 },
    passwordChangedAt: null,
    replicaSets: [],
    ...overrides,
  };
}

const rule = (fields: Record<string, unknown>): FaultRuleSpec =>
  FaultRuleInput.parse({ action: 'service.metricsSeries', kind: 'metricAnomaly', ...fields });

describe('the metricAnomaly rule', () => {
  it('targets a service, defaults to CPU usage and needs a value', () => {
    expect(rule({ service: 'web-07', value: 3900 })).toMatchObject({ series: CPU, value: 3900 });
    expect(FaultRuleInput.safeParse({ action: '*', kind: 'metricAnomaly', service: 'x' }).success).toBe(
      false,
    );
    expect(
      FaultRuleInput.safeParse({ action: '*', kind: 'metricAnomaly', service: 'x', value: -1 }).success,
    ).toBe(false);
  });

  it('applies only to the operations answering metric series, and known series', () => {
    expect(METRIC_SERIES_ACTIONS).toEqual(['service.metricsSeries']);
    const onGet = FaultRuleInput.safeParse({
      action: 'service.get',
      kind: 'metricAnomaly',
      service: 'web-07',
      value: 1,
    });
    expect(onGet.success).toBe(false);
    expect(onGet.error?.issues[0]).toMatchObject({
      path: ['action'],
      message: 'metricAnomaly applies only to service.metricsSeries',
    });
    expect(
      FaultRuleInput.safeParse({
        action: 'service.metricsSeries',
        kind: 'metricAnomaly',
        service: 'web-07',
        series: 'cpu',
        value: 1,
      }).success,
    ).toBe(false);
  });

  it('is written in a test file with operation, service, series and value', () => {
    const fault = TestFault.parse({
      operation: 'service.metricsSeries',
      kind: 'metricAnomaly',
      service: 'web-07',
      value: 3900,
    });
    expect(FaultRuleInput.parse(faultRule(fault))).toMatchObject({
      action: 'service.metricsSeries',
      kind: 'metricAnomaly',
      service: 'web-07',
      series: CPU,
      value: 3900,
    });
    expect(
      TestFault.safeParse({ operation: 'service.resize', kind: 'metricAnomaly', service: 'x', value: 1 })
        .success,
    ).toBe(false);
  });
});

describe('which reads an anomaly applies to', () => {
  const clock = new ManualClock(START + 10 * MINUTE);

  it('starts when added unless it names its start', () => {
    const faults = new FaultInjector(new SeededRandom(1), clock);
    const [added, named] = faults.add([
      rule({ service: 'web-07', value: 1 }),
      rule({ service: 'web-07', value: 2, from: '2025-01-01T00:03:00Z' }),
    ]);
    expect(added).toMatchObject({ from: '2025-01-01T00:10:00.000Z' });
    expect(named).toMatchObject({ from: '2025-01-01T00:03:00Z' });
  });

  it('matches its service by id or name, and its series only', () => {
    const faults = new FaultInjector(new SeededRandom(1), clock);
    faults.add([rule({ service: 'web-07', value: 1 }), rule({ service: 'svc0000002', value: 2 })]);
    const action = 'service.metricsSeries';
    expect(faults.fireAnomaly(action, { id: 'svc0000001', name: 'web-07' }, CPU)?.value).toBe(1);
    expect(faults.fireAnomaly(action, { id: 'svc0000002', name: 'web-08' }, CPU)?.value).toBe(2);
    expect(faults.fireAnomaly(action, { id: 'svc0000003', name: 'web-09' }, CPU)).toBeUndefined();
    const memory = 'timescale_cloud_system_memory_usage_bytes';
    expect(faults.fireAnomaly(action, { id: 'svc0000001', name: 'web-07' }, memory)).toBeUndefined();
  });

  it('is spent by the reads it changes, not by reads of other services', () => {
    const faults = new FaultInjector(new SeededRandom(1), clock);
    faults.add([rule({ service: 'web-07', value: 1, times: 1 })]);
    const action = 'service.metricsSeries';
    expect(faults.fireAnomaly(action, { id: 'other00001', name: 'web-01' }, CPU)).toBeUndefined();
    expect(faults.fireAnomaly(action, { id: 'svc0000001', name: 'web-07' }, CPU)?.value).toBe(1);
    expect(faults.fireAnomaly(action, { id: 'svc0000001', name: 'web-07' }, CPU)).toBeUndefined();
    expect(faults.list()).toMatchObject([{ remaining: 0, fired: 1 }]);
  });
});

describe('a series under an anomaly', () => {
  const now = START + 10 * MINUTE;
  const query = {
    name: CPU,
    from: new Date(START).toISOString(),
    to: new Date(now).toISOString(),
    filters: [] as { key: string; value: string }[],
  };

  it('reads the value in every bucket ending after its start, earlier buckets unchanged', () => {
    const normal = metricSeries(service(), query, now);
    // Mid-bucket: the bucket in progress at the start already reads the anomaly.
    const anomalous = metricSeries(service(), query, now, { value: 3900, from: '2025-01-01T00:06:30Z' });
    const values = (series: typeof normal) => series[0]?.data?.map((point) => point.value);
    expect(values(anomalous)).toEqual([...(values(normal) ?? []).slice(0, 6), 3900, 3900, 3900, 3900]);
    expect(anomalous[0]?.data?.map((point) => point.time)).toEqual(
      normal[0]?.data?.map((point) => point.time),
    );
  });

  it('reads the value on every node', () => {
    const byRole = { ...query, filters: [{ key: 'role', value: 'replica' }] };
    const replica = metricSeries(service(), byRole, now, { value: 7, from: new Date(START).toISOString() });
    expect(replica[0]?.labels).toEqual({ role: 'replica', ordinal: '1' });
    expect(new Set(replica[0]?.data?.map((point) => point.value))).toEqual(new Set([7]));
  });

  it('leaves a service without data without data: every bucket is a gap', () => {
    const queued = service({ status: 'QUEUED', firstReadyAt: null });
    const gaps = Array.from({ length: 10 }, (_, i) => ({
      time: new Date(START + i * MINUTE).toISOString().replace('.000Z', 'Z'),
    }));
    expect(metricSeries(queued, query, now, { value: 3900 })).toEqual([
      { labels: { role: 'primary', ordinal: '0' }, data: gaps },
    ]);
  });
});
