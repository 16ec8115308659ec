// stop-dev-services and start-dev-services end to end against the local cloud: only DEV services
// change, PROD ones are never touched, and a start that goes wrong stops the started ones again.
// The cases build on each other and run against both dialects of the local cloud (spec.md's and
// the API's current one).
import { DIALECTS } from '../helpers/local-cloud';
import {
  expectEveryOutputFilled,
  getService,
  reportOf,
  seedService,
  statusOf,
} from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

describe.each(DIALECTS)('stop-dev-services and start-dev-services (%s dialect)', (dialect) => {
  let stack: RunbookStack;
  /** DEV services that are READY at first. */
  let dev: string[];
  /** A DEV service that is PAUSED from the start. */
  let asleep: string;
  let prod: string;

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.05, dialect });
    const seeded = await Promise.all([
      seedService(stack, { name: 'dev-a' }),
      seedService(stack, { name: 'dev-b' }),
      seedService(stack, { name: 'dev-c' }),
      seedService(stack, { name: 'dev-asleep', paused: true }),
      seedService(stack, { name: 'prod-a', environment: 'PROD' }),
    ]);
    const ids = seeded.map((s) => s.service_id!);
    dev = ids.slice(0, 3);
    asleep = ids[3]!;
    prod = ids[4]!;
  }, 60_000);
  afterAll(async () => stack?.close());

  const statusOfService = async (id: string) => (await getService(stack, id)).status;
  const statuses = (ids: string[]) => Promise.all(ids.map(statusOfService));
  const calls = (action: string) => stack.cloud.cloud.stats().byAction[action]?.total ?? 0;

  async function expectProdUntouched(): Promise<void> {
    expect(await getService(stack, prod)).toMatchObject({
      status: 'READY',
      metadata: { environment: 'PROD' },
    });
  }

  test('stop-dev-services pauses the READY DEV services and nothing else', async () => {
    stack.cloud.cloud.resetStats();
    const handle = await stack.start('stop-dev-services.yaml', {
      project_id: stack.projectId,
      concurrency: 2,
    });
    const report = await reportOf(handle);

    expect(report.status).toBe('succeeded');
    expect([...(report.outputs.stopped as string[])].sort()).toEqual([...dev].sort());
    expectEveryOutputFilled(report, 'stop-dev-services.yaml');
    expect(await statuses(dev)).toEqual(['PAUSED', 'PAUSED', 'PAUSED']);
    expect(await statusOfService(asleep)).toBe('PAUSED');
    await expectProdUntouched();
    expect(calls('service.stop')).toBe(3);
  }, 30_000);

  test('a start that ends UNSTABLE stops every service the run started again', async () => {
    stack.cloud.cloud.addFaults({ action: 'service.start', kind: 'outcome', outcome: 'unstable', times: 1 });
    const handle = await stack.start('start-dev-services.yaml', {
      project_id: stack.projectId,
      concurrency: 4,
    });
    const report = await reportOf(handle);

    expect(report.status).toBe('failed');
    expect(report.failure?.type).toBe('WAIT_FAILED_CONDITION');
    expect(report.failure?.stepKey).toMatch(/^start_each\[\d\]\.running$/);
    // All four were started (concurrency 4), so all four are stopped again.
    for (let index = 0; index < 4; index++) {
      expect(statusOf(report, `start_each[${index}].start`)).toBe('compensated');
      expect(statusOf(report, `start_each[${index}].start/undo.paused_again`)).toBe('done');
    }
    expect(await statuses([...dev, asleep])).toEqual(['PAUSED', 'PAUSED', 'PAUSED', 'PAUSED']);
    await expectProdUntouched();
  }, 30_000);

  test('start-dev-services resumes every PAUSED DEV service', async () => {
    stack.cloud.cloud.resetStats();
    const handle = await stack.start('start-dev-services.yaml', { project_id: stack.projectId });
    const report = await reportOf(handle);

    expect(report.status).toBe('succeeded');
    expect([...(report.outputs.started as string[])].sort()).toEqual([...dev, asleep].sort());
    expectEveryOutputFilled(report, 'start-dev-services.yaml');
    for (const id of [...dev, asleep]) {
      const service = await getService(stack, id);
      expect(service).toMatchObject({ status: 'READY', paused: false, metadata: { environment: 'DEV' } });
    }
    await expectProdUntouched();
    expect(calls('service.start')).toBe(4);
  }, 30_000);
});
