// The worker configuration's API budgets: `cloud.rateLimit` for every project, a project's own
// `rateLimit` instead, each project's client going through its limiter, and bad values refused
// with the field named.
import { loadWorkerConfig } from '../../worker/config';
import { createCloudClientResolver } from '../../worker/cloud-clients';
import type { CloudCaller } from '../../cloud/client';

const load = (cloud: Record<string, unknown>) =>
  loadWorkerConfig({
    env: { TIDELINE_CONFIG: 'c.json' },
    readFile: () => JSON.stringify({ cloud: { baseUrl: 'https://api.example.com/v1', ...cloud } }),
  });

test('a default budget for every project, a project’s own instead', () => {
  const config = load({
    rateLimit: { callsPerSecond: 10, concurrentCalls: 8 },
    projects: {
      a: { accessKey: 'ak', secretKey: 'sk' },
      b: { accessKey: 'ak', secretKey: 'sk', rateLimit: { callsPerSecond: 2 } },
    },
  });
  expect(config.cloud.projects.get('a')?.rateLimit).toEqual({ callsPerSecond: 10, concurrentCalls: 8 });
  expect(config.cloud.projects.get('b')?.rateLimit).toEqual({ callsPerSecond: 2 });
  expect(JSON.parse(JSON.stringify(config)).cloud.rateLimits).toEqual({
    a: { callsPerSecond: 10, concurrentCalls: 8 },
    b: { callsPerSecond: 2 },
  });
});

test('each project with a budget gets a limiter its calls go through; one without, none', async () => {
  const config = load({
    projects: {
      a: { accessKey: 'ak', secretKey: 'sk', rateLimit: { concurrentCalls: 1 } },
      b: { accessKey: 'ak', secretKey: 'sk' },
    },
  });
  let open = 0;
  let most = 0;
  const direct: CloudCaller = {
    call: async () => {
      most = Math.max(most, ++open);
      await new Promise((resolve) => setImmediate(resolve));
      open -= 1;
      return {} as never;
    },
  };
  const resolver = createCloudClientResolver(config.cloud, () => direct);
  expect(resolver.limiters().map((l) => l.limit)).toEqual([{ concurrentCalls: 1 }]);
  const a = resolver.forProject('a');
  await Promise.all([1, 2, 3].map(() => a.call('project.list', {} as never)));
  expect(most).toBe(1);
  expect(resolver.forProject('b')).toBe(direct);
});

test('a budget must be positive: the field is named', () => {
  expect(() =>
    load({ rateLimit: { callsPerSecond: 0 }, projects: { a: { accessKey: 'ak', secretKey: 'sk' } } }),
  ).toThrow(/cloud\.rateLimit\.callsPerSecond: must be above 0/);
  expect(() =>
    load({ projects: { a: { accessKey: 'ak', secretKey: 'sk', rateLimit: { concurrentCalls: 1.5 } } } }),
  ).toThrow(/cloud\.projects\.a\.rateLimit\.concurrentCalls/);
});
