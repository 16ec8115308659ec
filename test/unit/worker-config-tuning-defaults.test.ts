// Every worker gets the capacity many concurrent runs need, without a config file.
import { loadWorkerConfig } from '../../worker/config';
import { DEFAULT_WORKER_TUNING } from '../../worker/config-schema';
import { tuningOptions } from '../../worker/worker';

const env = {
  TIDELINE_CLOUD_URL: 'https://api.example.com/public/api/v1',
  TIDELINE_CLOUD_PROJECT_ID: 'p1',
  TIDELINE_CLOUD_ACCESS_KEY: 'AK',
  TIDELINE_CLOUD_SECRET_KEY: 'SK',
};

test('a worker without `tuning:` gets slots for 2,000 waiting runs and 20 pollers each', () => {
  const config = loadWorkerConfig({ env });
  expect(config.tuning).toEqual(DEFAULT_WORKER_TUNING);
  expect(tuningOptions(config.tuning)).toEqual({
    maxConcurrentActivityTaskExecutions: 2_000,
    maxConcurrentWorkflowTaskExecutions: 100,
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 },
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 },
  });
  // The sticky cache stays the SDK's, sized from the heap limit.
  expect(config.tuning.maxCachedWorkflows).toBeUndefined();
});

test('the file overrides a default field by field', () => {
  const file = 'tuning: { maxConcurrentActivityTaskExecutions: 300, maxCachedWorkflows: 500 }';
  const config = loadWorkerConfig({ env: { ...env, TIDELINE_CONFIG: '/etc/w.yaml' }, readFile: () => file });
  expect(config.tuning).toEqual({
    ...DEFAULT_WORKER_TUNING,
    maxConcurrentActivityTaskExecutions: 300,
    maxCachedWorkflows: 500,
  });
});
