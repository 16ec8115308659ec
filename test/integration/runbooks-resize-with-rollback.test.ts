// resize-with-rollback end to end against the local cloud: the new size takes; a resize that
// leaves the service UNSTABLE is undone (the recorded size back, READY again).
import { getService, reportOf, seedService, statusOf } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

describe('resize-with-rollback', () => {
  let stack: RunbookStack;
  let serviceId: string;

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.05 });
    serviceId = (await seedService(stack, { name: 'metrics', cpuMillis: '1000' })).service_id!;
  }, 60_000);
  afterAll(async () => stack?.close());

  const size = async () => (await getService(stack, serviceId)).resources?.[0]?.spec;

  test('resizes and checks that the new size took', async () => {
    const handle = await stack.start('resize-with-rollback.yaml', {
      project_id: stack.projectId,
      service_id: serviceId,
      cpu_millis: '2000',
    });
    const report = await reportOf(handle);
    expect(report.status).toBe('succeeded');
    expect(report.outputs).toEqual({ previous_cpu_millis: 1000, cpu_millis: 2000 });
    expect(statusOf(report, 'size_took')).toBe('done');
    expect((await getService(stack, serviceId)).status).toBe('READY');
    expect(await size()).toMatchObject({ cpu_millis: 2000, memory_gbs: 8 });
  }, 30_000);

  test('a resize that leaves the service UNSTABLE is rolled back to the recorded size', async () => {
    stack.cloud.cloud.addFaults({ action: 'service.resize', kind: 'outcome', outcome: 'unstable', times: 1 });
    const handle = await stack.start('resize-with-rollback.yaml', {
      project_id: stack.projectId,
      service_id: serviceId,
      cpu_millis: '4000',
    });
    const report = await reportOf(handle);

    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'ready', type: 'WAIT_FAILED_CONDITION' });
    expect(report.failure?.message).toContain('UNSTABLE');
    expect(statusOf(report, 'resize')).toBe('compensated');
    expect(statusOf(report, 'resize/undo.resize_back')).toBe('done');
    expect(statusOf(report, 'resize/undo.ready_again')).toBe('done');
    expect(statusOf(report, 'size_took')).toBe('pending');
    // The fault was spent on the forward resize; the rollback resize went through.
    expect(stack.cloud.cloud.listFaults()).toMatchObject([{ remaining: 0, fired: 1 }]);
    expect(stack.cloud.cloud.stats().byAction['service.resize']?.byStatus).toEqual({ '202': 3 });

    const service = await getService(stack, serviceId);
    expect(service.status).toBe('READY');
    expect(await size()).toMatchObject({ cpu_millis: 2000, memory_gbs: 8 });
  }, 30_000);
});
