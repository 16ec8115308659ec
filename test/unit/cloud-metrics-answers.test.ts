// The preview metrics operations' schemas: answers read tolerantly (unknown fields dropped, a gap's
// null value and Go's null map or slice read as absent), the series query checked strictly with
// the vendor's rules (window, bucket tier, no `fn` on the system metrics).
import { MetricDataPoint, MetricSeries, MetricSeriesNames } from '../../cloud/models';
import { operations } from '../../cloud/operations';
import { MetricsSeriesBody, metricsBucketTier } from '../../cloud/requests';

const T0 = '2026-06-25T10:00:00Z';

describe('a metric series answer', () => {
  it('keeps labels and data points, dropping unknown fields at every level', () => {
    const series = MetricSeries.parse({
      labels: { role: 'primary', ordinal: '0' },
      data: [{ time: T0, value: 247.5, x_unknown: 1 }],
      x_tideline_extra: { nested: true },
    });
    expect(series).toEqual({ labels: { role: 'primary', ordinal: '0' }, data: [{ time: T0, value: 247.5 }] });
  });

  it("reads the current dialect's null value of an empty bucket as a point without a value", () => {
    expect(MetricDataPoint.parse({ time: T0, value: null })).toEqual({ time: T0 });
  });

  it('reads a null label set or data list (a nil Go map or slice) as absent', () => {
    expect(MetricSeries.parse({ labels: null, data: null })).toEqual({});
  });

  it('still refuses a point without its time, or with a value that is no number', () => {
    expect(MetricDataPoint.safeParse({ value: 1 }).success).toBe(false);
    expect(MetricDataPoint.safeParse({ time: T0, value: '1' }).success).toBe(false);
  });

  it('is read as a list by the catalogue, like the list of series names', () => {
    const answer = operations['service.metricsSeries'].response.parse([
      { labels: { role: 'replica', ordinal: '1' }, data: [] },
    ]);
    expect(answer).toEqual([{ labels: { role: 'replica', ordinal: '1' }, data: [] }]);
    expect(MetricSeriesNames.parse(['timescale_cloud_database_qps'])).toEqual([
      'timescale_cloud_database_qps',
    ]);
  });
});

describe('a metric series query', () => {
  const hour = { name: 'timescale_cloud_database_qps', from: T0, to: '2026-06-25T11:00:00Z' };
  const issues = (body: unknown) =>
    MetricsSeriesBody.safeParse(body).error?.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );

  it('takes a name and a window, and optionally a bucket and label filters', () => {
    expect(issues(hour)).toBeUndefined();
    expect(
      issues({
        ...hour,
        from: '2026-06-25T10:00:00.123456789Z',
        bucket_seconds: 300,
        filters: [{ key: 'role', value: 'replica' }],
      }),
    ).toBeUndefined();
  });

  it('refuses an empty or reversed window', () => {
    expect(issues({ ...hour, to: T0 })).toEqual(['to: to must be later than from']);
  });

  it('refuses a bucket finer than the window allows: 1 min up to 1 h, 1 h up to 30 days, 1 day beyond', () => {
    expect([3600, 3601, 30 * 86400, 30 * 86400 + 1].map(metricsBucketTier)).toEqual([60, 3600, 3600, 86400]);
    expect(issues({ ...hour, bucket_seconds: 30 })).toEqual([
      'bucket_seconds: Too small: expected number to be >=60',
    ]);
    expect(issues({ ...hour, to: '2026-06-27T10:00:00Z', bucket_seconds: 60 })).toEqual([
      'bucket_seconds: bucket_seconds 60 is finer than this window allows; use at least 3600',
    ]);
  });

  it('refuses fn on a metric the vendor documents as taking none, and unknown fields', () => {
    expect(issues({ ...hour, fn: 'AVG' })).toEqual([
      'fn: fn is not accepted on metric timescale_cloud_database_qps',
    ]);
    expect(issues({ ...hour, fn: 'MEDIAN' })?.[0]).toMatch(/^fn: /);
    expect(issues({ ...hour, step: 60 })?.[0]).toMatch(/step/);
  });
});
